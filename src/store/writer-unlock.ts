/**
 * Removing a file log's writer lock by hand (`signfold unlock LOG`): the way
 * out when the lock's holder is on another host or in another pid namespace,
 * where signfold cannot tell whether it still runs. See
 * `docs/log-format.md#one-writer-the-writer-lock` for the risk.
 */
import { err, ok, type Result } from 'neverthrow';
import { holderOf, observe, removeIfUnchanged, removeLeftoverScratch } from './lock-file.js';
import { judgeLock, type LockVerdict } from './lock-verdict.js';
import type { LockHolder, LogError } from './log-error.js';
import { ioError } from './log-error.js';
import { breakLock } from './writer-lock.js';

/** What {@link unlockWriterLock} did. */
export type UnlockOutcome =
  /** There was no lock (leftover `.break` and scratch files, if any, were removed). */
  | { readonly kind: 'not-locked'; readonly lockPath: string }
  /** The lock was removed; `verdict` is what was known of its holder. */
  | {
      readonly kind: 'removed';
      readonly lockPath: string;
      readonly holder: LockHolder | undefined;
      readonly verdict: LockVerdict;
      readonly heartbeatAgeMs: number;
    }
  /** The holder runs in this pid namespace (or is this process): the lock was kept. */
  | {
      readonly kind: 'running';
      readonly lockPath: string;
      readonly holder: LockHolder | undefined;
      readonly heartbeatAgeMs: number;
    }
  /** Another process took the lock, or was taking it, at the same time: it was left alone. */
  | { readonly kind: 'busy'; readonly lockPath: string };

const isLive = (verdict: LockVerdict): boolean =>
  verdict.kind === 'running' || verdict.kind === 'held-here';

/**
 * Removes the writer lock of the log at `logPath` (`<logPath>.lock`), unless
 * its holder is known to run in this pid namespace and `force` is not set.
 * The removal is serialised with openers by `<lock>.break`, and removes the
 * lock only if it is still the one judged, so a writer that took it meanwhile
 * keeps it. Also removes a `.break` and scratch files left by crashed
 * openers. Resolves to an `io` error if the files cannot be read or removed.
 */
export const unlockWriterLock = async (
  logPath: string,
  { force = false }: { readonly force?: boolean } = {},
): Promise<Result<UnlockOutcome, LogError>> => {
  const lockPath = `${logPath}.lock`;
  const mayBreak = (verdict: LockVerdict): boolean => force || !isLive(verdict);
  try {
    const seen = await observe(lockPath);
    if (seen === undefined) {
      const leftBreak = await observe(`${lockPath}.break`);
      if (leftBreak !== undefined && mayBreak(judgeLock(leftBreak))) {
        await removeIfUnchanged(`${lockPath}.break`, leftBreak.text);
      }
      await removeLeftoverScratch(lockPath);
      return ok({ kind: 'not-locked', lockPath });
    }
    const verdict = judgeLock(seen);
    const holder = holderOf(seen);
    if (!mayBreak(verdict)) {
      return ok({ kind: 'running', lockPath, holder, heartbeatAgeMs: seen.ageMs });
    }
    const had = await breakLock(lockPath, seen, mayBreak);
    // Someone else broke it and took it meanwhile: theirs is a new lock, not the one judged.
    if (!had || (await observe(lockPath)) !== undefined) return ok({ kind: 'busy', lockPath });
    await removeLeftoverScratch(lockPath);
    return ok({ kind: 'removed', lockPath, holder, verdict, heartbeatAgeMs: seen.ageMs });
  } catch (cause) {
    return err(ioError(cause, lockPath, 'unlocking'));
  }
};
