/**
 * The exclusive writer lock of a file log: `<log>.lock`, a small JSON file
 * naming its holder. See `docs/log-format.md#one-writer-the-writer-lock`.
 *
 * Why hand-written rather than `proper-lockfile`: that library decides
 * staleness by mtime alone, so after a crash every restart waits out the
 * stale period (2 s at least), and two openers breaking the same stale lock
 * can both succeed. Here a holder that died on this host is recognised at
 * once by its pid, and breaking a stale lock is serialised by a second lock.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, unlinkSync } from 'node:fs';
import { type FileHandle, link, open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { LockHolder } from '../engine/event-log.js';
import { byteLimit } from '../engine/log-limits.js';
import { errnoCode } from './log-error.js';
import { processExists } from './process-liveness.js';

/** Timing of the writer lock's heartbeat (the `lock` option of `openFileEventLog`). */
export interface WriterLockOptions {
  /** A lock whose heartbeat is older than this is stale, whoever holds it (default 30,000 ms). */
  readonly staleAfterMs?: number;
  /** How often the holder refreshes its heartbeat (default a fifth of `staleAfterMs`). */
  readonly heartbeatMs?: number;
}

/** {@link WriterLockOptions} resolved against the defaults. */
export interface LockTiming {
  readonly staleAfterMs: number;
  readonly heartbeatMs: number;
}

/** Resolves lock options; throws `RangeError` unless each is a positive integer. */
export const lockTiming = (options: WriterLockOptions | undefined): LockTiming => {
  const staleAfterMs = byteLimit(options?.staleAfterMs, 30_000, 'lock.staleAfterMs');
  const heartbeatMs = byteLimit(
    options?.heartbeatMs,
    Math.max(1, Math.floor(staleAfterMs / 5)),
    'lock.heartbeatMs',
  );
  return { staleAfterMs, heartbeatMs };
};

/** Why the lock could not be taken. */
export type LockRefusal =
  | { readonly kind: 'held'; readonly holder: LockHolder | undefined }
  | { readonly kind: 'io'; readonly cause: unknown };

/** A lock this process holds. */
export interface HeldLock {
  /** The lock file. */
  readonly lockPath: string;
  /** Whether the lock file is still this holder's (false once taken over or deleted). */
  stillHeld(): boolean;
  /** Removes the lock file if it is still ours; never rejects. */
  release(): Promise<void>;
}

interface LockContent extends LockHolder {
  readonly token: string;
}

const HOST = hostname();
/** Tokens of the locks this process holds now, to tell our own lock from a dead twin's with our pid. */
const heldTokens = new Set<string>();
/** Lock files to remove if the process exits without closing its logs. */
const heldPaths = new Map<string, string>();
let exitHookInstalled = false;

const removeOnExit = (): void => {
  for (const [path, token] of heldPaths) {
    try {
      const content = parseContent(readFileSync(path, 'utf8'));
      if (content?.token === token) unlinkSync(path);
    } catch {
      // Already gone, or unreadable: nothing of ours to remove.
    }
  }
};

const parseContent = (text: string): LockContent | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, host, since, token } = value as Record<string, unknown>;
    if (!Number.isSafeInteger(pid) || typeof host !== 'string') return undefined;
    if (typeof since !== 'string' || typeof token !== 'string') return undefined;
    return { pid: pid as number, host, since, token };
  } catch {
    return undefined;
  }
};

interface Observed {
  readonly content: LockContent | undefined;
  readonly text: string;
  readonly ageMs: number;
}

/** Reads a lock file; `undefined` when it does not exist (any more). */
const observe = async (path: string): Promise<Observed | undefined> => {
  try {
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    return { content: parseContent(text), text, ageMs: Date.now() - info.mtimeMs };
  } catch (cause) {
    if (errnoCode(cause) === 'ENOENT') return undefined;
    throw cause;
  }
};

/** Whether an observed lock may be broken: its holder is gone, or its heartbeat expired. */
const isStale = (seen: Observed, staleAfterMs: number): boolean => {
  if (seen.ageMs > staleAfterMs) return true;
  const { content } = seen;
  // Unreadable content can only be a hand-made file; only its age can free it.
  if (content === undefined || content.host !== HOST) return false;
  if (content.pid === process.pid) return !heldTokens.has(content.token);
  return !processExists(content.pid);
};

/** File systems without hard links answer link() with one of these. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * Creates `path` atomically with its full content (write a private file,
 * then hard-link it into place, which fails with EEXIST if taken; link is
 * also atomic on NFS, unlike O_EXCL on old clients). Without hard links,
 * falls back to O_EXCL, where a reader may briefly see an empty file.
 * Resolves to the open lock file, or `undefined` if `path` exists.
 */
const createWith = async (path: string, content: LockContent): Promise<FileHandle | undefined> => {
  const text = `${JSON.stringify(content)}\n`;
  const scratch = `${path}.${process.pid}.${content.token}`;
  const handle = await open(scratch, 'wx');
  let linked = false;
  try {
    await handle.writeFile(text);
    await link(scratch, path);
    linked = true;
    return handle;
  } catch (cause) {
    const code = errnoCode(cause);
    if (code === 'EEXIST') return undefined;
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw cause;
    return await createExclusive(path, text);
  } finally {
    if (!linked) await handle.close().catch(() => undefined);
    await unlink(scratch).catch(() => undefined);
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
const removeIfUnchanged = async (path: string, text: string): Promise<void> => {
  const now = await observe(path);
  if (now !== undefined && now.text === text) await unlink(path).catch(() => undefined);
};

const freshContent = (): LockContent => ({
  pid: process.pid,
  host: HOST,
  since: new Date().toISOString(),
  token: randomBytes(12).toString('hex'),
});

const BREAK_ATTEMPTS = 50;
const BREAK_WAIT_MS = 20;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Breaks the stale lock `seen` under `<lock>.break`, so two openers racing
 * for the same stale lock cannot both remove it: the second finds it changed.
 */
const breakStale = async (lockPath: string, seen: Observed, staleAfterMs: number) => {
  const breakPath = `${lockPath}.break`;
  for (let attempt = 0; attempt < BREAK_ATTEMPTS; attempt += 1) {
    const breaker = freshContent();
    const created = await createWith(breakPath, breaker);
    if (created !== undefined) {
      await created.close();
      heldTokens.add(breaker.token);
      try {
        await removeIfUnchanged(lockPath, seen.text);
      } finally {
        heldTokens.delete(breaker.token);
        await unlink(breakPath).catch(() => undefined);
      }
      return;
    }
    const other = await observe(breakPath);
    if (other !== undefined && isStale(other, Math.min(staleAfterMs, 10_000))) {
      await removeIfUnchanged(breakPath, other.text);
    } else {
      await sleep(BREAK_WAIT_MS);
    }
  }
};

const holderOf = (seen: Observed | undefined): LockHolder | undefined =>
  seen?.content === undefined
    ? undefined
    : { pid: seen.content.pid, host: seen.content.host, since: seen.content.since };

/**
 * Takes the writer lock `lockPath`, breaking a stale one. Resolves to the
 * held lock, or to why not (held by a live writer, or an I/O failure).
 */
export const acquireWriterLock = async (
  lockPath: string,
  { staleAfterMs, heartbeatMs }: LockTiming,
): Promise<{ readonly held: HeldLock } | { readonly refused: LockRefusal }> => {
  const content = freshContent();
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const created = await createWith(lockPath, content);
      if (created !== undefined)
        return { held: await hold(lockPath, created, content, heartbeatMs) };
      const seen = await observe(lockPath);
      if (seen === undefined) continue;
      if (!isStale(seen, staleAfterMs))
        return { refused: { kind: 'held', holder: holderOf(seen) } };
      await breakStale(lockPath, seen, staleAfterMs);
    }
    return { refused: { kind: 'held', holder: holderOf(await observe(lockPath)) } };
  } catch (cause) {
    return { refused: { kind: 'io', cause } };
  }
};

/**
 * Starts the heartbeat and the exit hook of a lock just created. The lock
 * file stays open, so its inode cannot be reused: the lock is still ours
 * exactly while the path names that inode.
 */
const hold = async (
  lockPath: string,
  file: FileHandle,
  content: LockContent,
  heartbeatMs: number,
): Promise<HeldLock> => {
  const { dev, ino } = await file.stat();
  heldTokens.add(content.token);
  heldPaths.set(lockPath, content.token);
  if (!exitHookInstalled) {
    process.once('exit', removeOnExit);
    exitHookInstalled = true;
  }
  // One synchronous stat (a few µs): cheap enough to fence every group commit.
  const stillHeld = (): boolean => {
    try {
      const now = statSync(lockPath, { throwIfNoEntry: false });
      return now !== undefined && now.ino === ino && now.dev === dev;
    } catch {
      return false;
    }
  };
  const beat = setInterval(() => {
    const now = new Date();
    // Touches our own inode: harmless if the path was taken over meanwhile.
    file.utimes(now, now).catch(() => undefined);
  }, heartbeatMs);
  beat.unref();
  let released: Promise<void> | undefined;
  return {
    lockPath,
    stillHeld,
    release: () => {
      released ??= (async () => {
        clearInterval(beat);
        if (stillHeld()) await unlink(lockPath).catch(() => undefined);
        await file.close().catch(() => undefined);
        heldTokens.delete(content.token);
        if (heldPaths.get(lockPath) === content.token) heldPaths.delete(lockPath);
      })();
      return released;
    },
  };
};
