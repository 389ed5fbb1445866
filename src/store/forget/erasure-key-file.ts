/**
 * The key of a file log's keyed name hashes: `LOG.erasures-key`, 32 random
 * bytes as hex, made by the first forget that types a name and kept beside
 * the ledger, not in it, so that a copy of the ledger alone cannot be
 * searched for names (docs/privacy.md, "The ledger"). Readable by its owner
 * only (mode 0600).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { err, ok, type Result } from 'neverthrow';
import type { NameKey } from '../../core/privacy/name-key.js';
import { nodeFileIO } from '../file-io.js';

/** The key file of the log at `logPath`. */
export const nameKeyPathOf = (logPath: string): string => `${logPath}.erasures-key`;

const KEY = /^[0-9a-f]{64}\n?$/;

const messageOf = (cause: unknown): string =>
  cause instanceof Error ? cause.message : String(cause);

/**
 * HMAC-SHA-256 of the name's UTF-16 code units under `key`: UTF-16, not
 * UTF-8, so that two names differing only in a lone surrogate (which UTF-8
 * would turn into the same U+FFFD) keep different hashes.
 */
export const hmacNameKey =
  (key: Buffer): NameKey =>
  (name) =>
    createHmac('sha256', key).update(Buffer.from(name, 'utf16le')).digest('hex');

/**
 * The keyed hash of the log at `logPath`, `undefined` when it has no key
 * file yet; an error (naming the file) when the file is there but is no key.
 */
export const readNameKeyFile = async (
  logPath: string,
): Promise<Result<NameKey | undefined, string>> => {
  const path = nameKeyPathOf(logPath);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return err(`${path}: ${messageOf(cause)}`);
  }
  if (!KEY.test(text)) return err(`${path}: not a key (64 hex digits); restore it from a backup`);
  return ok(hmacNameKey(Buffer.from(text.slice(0, 64), 'hex')));
};

/**
 * The key of the log at `logPath`, made (and fsynced, with its directory)
 * when there is none. Called under the writer lock, so no other forget makes
 * one at the same time; `O_EXCL` would refuse it anyway.
 */
export const ensureNameKeyFile = async (logPath: string): Promise<Result<NameKey, string>> => {
  const existing = await readNameKeyFile(logPath);
  if (existing.isErr()) return err(existing.error);
  if (existing.value !== undefined) return ok(existing.value);
  const path = nameKeyPathOf(logPath);
  const key = randomBytes(32);
  try {
    const handle = await open(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
      0o600,
    );
    try {
      await handle.write(`${key.toString('hex')}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await nodeFileIO.syncDirectory(dirname(path));
  } catch (cause) {
    return err(`${path}: ${messageOf(cause)}`);
  }
  return ok(hmacNameKey(key));
};
