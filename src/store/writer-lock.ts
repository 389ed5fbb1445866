/**
 * The exclusive writer lock of a file log: `<log>.lock`, a small JSON file
 * naming its holder. See `docs/log-format.md#one-writer-the-writer-lock`.
 *
 * Why hand-written rather than `proper-lockfile`: that library decides
 * staleness by mtime alone, which breaks the lock of a writer that is merely
 * stalled (its pending write then lands after the new writer's), and two
 * openers breaking the same stale lock can both succeed. Here a lock is
 * broken only when its holder is known to be gone (`lock-verdict.ts`), and
 * breaking is serialised by a second lock.
 */
import { readFileSync, statSync, unlinkSync } from 'node:fs';
import { type FileHandle, unlink } from 'node:fs/promises';
import { byteLimit } from '../engine/log-limits.js';
import type { LockContent, Observed } from './lock-content.js';
import {
  createWith,
  freshContent,
  holderOf,
  observe,
  parseContent,
  removeIfUnchanged,
  removeLeftoverScratch,
} from './lock-file.js';
import { heldTokens, judgeLock, type LockVerdict } from './lock-verdict.js';
import type { LockHolder } from './log-error.js';

/** Timing of the writer lock's heartbeat (the `lock` option of `openFileEventLog`). */
export interface WriterLockOptions {
  /**
   * A heartbeat older than this (default 30,000 ms) marks a lock of another
   * host as probably abandoned in the `locked` error; no lock is ever broken
   * for its age alone.
   */
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

/** Why a held lock was not taken: what its verdict was, or `contended` (others kept taking it). */
export type HeldBecause = Exclude<LockVerdict['kind'], 'gone'> | 'contended';

/** Why the lock could not be taken. */
export type LockRefusal =
  | {
      readonly kind: 'held';
      readonly holder: LockHolder | undefined;
      readonly because: HeldBecause;
      /** Age of the holder's heartbeat (the lock file's modification time). */
      readonly heartbeatAgeMs: number | undefined;
    }
  | { readonly kind: 'io'; readonly cause: unknown };

/** A lock this process holds. */
export interface HeldLock {
  /** The lock file. */
  readonly lockPath: string;
  /** Whether the lock file is still this holder's (false once removed by hand or by `unlock`). */
  stillHeld(): boolean;
  /** Removes the lock file if it is still ours; never rejects. */
  release(): Promise<void>;
}

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

const BREAK_ATTEMPTS = 50;
const BREAK_WAIT_MS = 20;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Removes the lock `seen` under `<lock>.break`, so two openers racing for the
 * same lock cannot both remove it: the second finds it changed. A `.break`
 * left behind is removed when `mayBreak` accepts its verdict; one a live
 * process holds is waited for (1 s at most). Resolves to whether the break
 * lock was had (the lock is then gone or changed).
 */
export const breakLock = async (
  lockPath: string,
  seen: Observed,
  mayBreak: (verdict: LockVerdict) => boolean,
): Promise<boolean> => {
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
      return true;
    }
    const other = await observe(breakPath);
    if (other !== undefined && mayBreak(judgeLock(other))) {
      await removeIfUnchanged(breakPath, other.text);
    } else {
      await sleep(BREAK_WAIT_MS);
    }
  }
  return false;
};

const isGone = (verdict: LockVerdict): boolean => verdict.kind === 'gone';

/**
 * Takes the writer lock `lockPath`, breaking it only if its holder is gone
 * (see `lock-verdict.ts`), and removes scratch files left by openers killed
 * mid-way. Resolves to the held lock, or to why not.
 */
export const acquireWriterLock = async (
  lockPath: string,
  { heartbeatMs }: LockTiming,
): Promise<{ readonly held: HeldLock } | { readonly refused: LockRefusal }> => {
  const content = freshContent();
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const created = await createWith(lockPath, content);
      if (created !== undefined) {
        const held = await hold(lockPath, created, content, heartbeatMs);
        await removeLeftoverScratch(lockPath);
        return { held };
      }
      const seen = await observe(lockPath);
      if (seen === undefined) continue;
      const verdict = judgeLock(seen);
      if (verdict.kind !== 'gone') {
        const because = verdict.kind;
        return {
          refused: { kind: 'held', holder: holderOf(seen), because, heartbeatAgeMs: seen.ageMs },
        };
      }
      await breakLock(lockPath, seen, isGone);
    }
    const seen = await observe(lockPath);
    const heartbeatAgeMs = seen?.ageMs;
    return {
      refused: { kind: 'held', holder: holderOf(seen), because: 'contended', heartbeatAgeMs },
    };
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
  // One synchronous stat (a few µs): cheap enough to check before every group commit.
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
    // Touches our own inode: harmless if the path was removed meanwhile.
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
