/**
 * The lock files of a file log's writer lock (`<log>.lock` and
 * `<log>.lock.break`): their content, reading them, creating them atomically,
 * and the private scratch files (`<lock>.<pid>.<token>`) creation uses.
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, link, open, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { LockContent, Observed } from './lock-content.js';
import type { LockHolder } from './log-error.js';
import { errnoCode } from './log-error.js';
import { ownIdentity, processExists } from './process-liveness.js';

/** This host's name, as recorded in the locks this process takes. */
export const HOST = hostname();

const optionalString = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The content of a lock file, or `undefined` when it is not one signfold wrote. */
export const parseContent = (text: string): LockContent | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, host, since, token, bootId, pidNamespace, startTime } = value as Record<
      string,
      unknown
    >;
    if (!Number.isSafeInteger(pid) || typeof host !== 'string') return undefined;
    if (typeof since !== 'string' || typeof token !== 'string') return undefined;
    const identity = {
      bootId: optionalString(bootId),
      pidNamespace: optionalString(pidNamespace),
      startTime: optionalString(startTime),
    };
    return { pid: pid as number, host, since, token, ...identity };
  } catch {
    return undefined;
  }
};

/** Who holds an observed lock, as the `locked` error and `unlock` name it. */
export const holderOf = (seen: Observed | undefined): LockHolder | undefined =>
  seen?.content === undefined
    ? undefined
    : { pid: seen.content.pid, host: seen.content.host, since: seen.content.since };

/** Reads a lock file; `undefined` when it does not exist (any more). */
export const observe = async (path: string): Promise<Observed | undefined> => {
  try {
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    return { content: parseContent(text), text, ageMs: Date.now() - info.mtimeMs };
  } catch (cause) {
    if (errnoCode(cause) === 'ENOENT') return undefined;
    throw cause;
  }
};

/** The content of a lock this process is about to take. */
export const freshContent = (): LockContent => ({
  pid: process.pid,
  host: HOST,
  since: new Date().toISOString(),
  token: randomBytes(12).toString('hex'),
  ...ownIdentity(),
});

/** Tokens of scratch files this process is creating now: never someone's leftovers. */
const scratchInUse = new Set<string>();

/** File systems without hard links answer link() with one of these. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/** Tries before giving up when another process keeps removing our scratch file (see below). */
const SCRATCH_ATTEMPTS = 3;

/**
 * Creates `path` atomically with its full content (write a private file,
 * then hard-link it into place, which fails with EEXIST if taken; link is
 * also atomic on NFS, unlike O_EXCL on old clients). Without hard links,
 * falls back to O_EXCL, where a reader may briefly see an empty file.
 * Resolves to the open lock file, or `undefined` if `path` exists.
 */
export const createWith = async (
  path: string,
  content: LockContent,
): Promise<FileHandle | undefined> => {
  const text = `${JSON.stringify(content)}\n`;
  for (let attempt = 1; ; attempt += 1) {
    // A fresh name per attempt: an opener that judged our scratch file a leftover may remove it.
    const token = attempt === 1 ? content.token : randomBytes(12).toString('hex');
    const scratch = `${path}.${process.pid}.${token}`;
    scratchInUse.add(token);
    const handle = await open(scratch, 'wx').catch((cause: unknown) => {
      scratchInUse.delete(token);
      throw cause;
    });
    let linked = false;
    try {
      await handle.writeFile(text);
      await link(scratch, path);
      linked = true;
      return handle;
    } catch (cause) {
      const code = errnoCode(cause);
      if (code === 'EEXIST') return undefined;
      if (code === 'ENOENT' && attempt < SCRATCH_ATTEMPTS) continue;
      if (code === undefined || !NO_HARD_LINKS.has(code)) throw cause;
      return await createExclusive(path, text);
    } finally {
      if (!linked) await handle.close().catch(() => undefined);
      await unlink(scratch).catch(() => undefined);
      scratchInUse.delete(token);
    }
  }
};

const createExclusive = async (path: string, text: string): Promise<FileHandle | undefined> => {
  let handle: FileHandle;
  try {
    handle = await open(path, 'wx');
  } catch (cause) {
    if (errnoCode(cause) === 'EEXIST') return undefined;
    throw cause;
  }
  await handle.writeFile(text);
  return handle;
};

/** Removes `path` only if it still holds exactly `text`. */
export const removeIfUnchanged = async (path: string, text: string): Promise<void> => {
  const now = await observe(path);
  if (now !== undefined && now.text === text) await unlink(path).catch(() => undefined);
};

/** A scratch file's age after which it is a leftover whoever made it (its maker needs milliseconds). */
const SCRATCH_LEFTOVER_MS = 10_000;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Removes the scratch files of `lockPath` (and of its `.break`) that a
 * process killed while creating a lock left behind: those of a pid that no
 * longer runs here, of this process but not in use, or older than 10 s.
 * Removing a live opener's scratch file only makes it retry (see
 * {@link createWith}). Never rejects; resolves to the names removed.
 */
export const removeLeftoverScratch = async (lockPath: string): Promise<string[]> => {
  const base = escapeRegExp(basename(lockPath));
  const pattern = new RegExp(`^${base}(?:\\.break)?\\.(\\d+)\\.([0-9a-f]{24})$`);
  const dir = dirname(lockPath);
  const removed: string[] = [];
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const match = pattern.exec(name);
    if (match === null) continue;
    const pid = Number(match[1]);
    const path = join(dir, name);
    try {
      const leftover =
        pid === process.pid
          ? !scratchInUse.has(match[2] ?? '')
          : !processExists(pid) || Date.now() - (await stat(path)).mtimeMs > SCRATCH_LEFTOVER_MS;
      if (leftover) {
        await unlink(path);
        removed.push(name);
      }
    } catch {
      // Gone meanwhile (its maker finished), or not ours to remove: leave it.
    }
  }
  return removed;
};
