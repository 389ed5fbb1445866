/**
 * The erasure ledger of a file log: `LOG.erasures`, one JSON entry per line
 * (see `ErasureEntry`), appended and fdatasynced before anything it speaks
 * of is rewritten. It holds ids, pseudonyms and counts, never a name.
 */
import { constants } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { err, ok, type Result } from 'neverthrow';
import {
  decodeErasureEntry,
  type ErasureEntry,
  ErasureLedger,
  entryNeedsNameKey,
} from '../../core/privacy/erasure-ledger.js';
import { nodeFileIO } from '../file-io.js';
import { nameKeyPathOf, readNameKeyFile } from './erasure-key-file.js';

/** The ledger of the log at `logPath`. */
export const ledgerPathOf = (logPath: string): string => `${logPath}.erasures`;

/** Why the ledger cannot be read or written; `message` names the file and the line. */
export interface LedgerError {
  readonly kind: 'ledger';
  readonly message: string;
}

const messageOf = (cause: unknown): string =>
  cause instanceof Error ? cause.message : String(cause);

/**
 * Reads the ledger of `logPath` (none: an empty ledger). A damaged entry is
 * an error, not skipped: a writer that ignored it could store a forgotten
 * name again. Only an unterminated last line, a write cut short by a crash
 * before its fdatasync, is dropped. The key of its name hashes
 * (`LOG.erasures-key`) is read with it; one missing while entries hold name
 * hashes is an error too, for the same reason.
 */
export const readLedgerFile = async (
  logPath: string,
): Promise<Result<ErasureLedger, LedgerError>> => {
  const path = ledgerPathOf(logPath);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return ok(new ErasureLedger([]));
    return err({ kind: 'ledger', message: `${path}: ${messageOf(cause)}` });
  }
  const lines = text.split('\n');
  lines.pop();
  const entries: ErasureEntry[] = [];
  for (const [index, line] of lines.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    const entry = decodeErasureEntry(value);
    if (entry.isErr()) {
      return err({
        kind: 'ledger',
        message: `${path}:${index + 1}: damaged erasure ledger (${entry.error}); restore it from a backup`,
      });
    }
    entries.push(entry.value);
  }
  // `last` is '' after a final newline, or a torn write that never counted: dropped.
  const nameKey = await readNameKeyFile(logPath);
  if (nameKey.isErr()) return err({ kind: 'ledger', message: nameKey.error });
  if (nameKey.value === undefined && entries.some(entryNeedsNameKey)) {
    return err({
      kind: 'ledger',
      message: `${nameKeyPathOf(logPath)} is missing, and ${path} recognises forgotten names by it; restore it from a backup`,
    });
  }
  return ok(new ErasureLedger(entries, nameKey.value));
};

/** Appends `entry` to the ledger of `logPath` and waits for it to be on disk. */
export const appendErasureEntry = async (
  logPath: string,
  entry: ErasureEntry,
): Promise<Result<void, LedgerError>> => {
  const path = ledgerPathOf(logPath);
  try {
    const before = await readFile(path).catch((cause: NodeJS.ErrnoException) => {
      if (cause.code === 'ENOENT') return Buffer.alloc(0);
      throw cause;
    });
    const handle = await open(path, constants.O_WRONLY | constants.O_CREAT, 0o644);
    try {
      // A torn last line (a crash before its fdatasync) never counted: cut it, then append.
      const whole = before.lastIndexOf(0x0a) + 1;
      if (whole < before.length) await handle.truncate(whole);
      await handle.write(`${JSON.stringify(entry)}\n`, whole);
      await handle.datasync();
      if (before.length === 0) await nodeFileIO.syncDirectory(dirname(path));
    } finally {
      await handle.close();
    }
    return ok(undefined);
  } catch (cause) {
    return err({ kind: 'ledger', message: `${path}: ${messageOf(cause)}` });
  }
};
