/**
 * The single-writer lock of a log's reactor state, `LOG.reactors.lock`: the
 * same lock file machinery as the log's writer lock, but its own file, since
 * `serve` appends to the log while `react` follows it. A holder that is
 * stopped (SIGSTOP) still runs, so its lock is kept: two runners never
 * journal over each other.
 */
import { err, ok, type Result } from 'neverthrow';
import { visibleText } from '../../core/visible-text.js';
import { seconds } from '../locked-error.js';
import { acquireWriterLock, type HeldLock, lockTiming } from '../writer-lock.js';

/** The reactor lock of the log at `logPath`. */
export const reactorLockPathOf = (logPath: string): string => `${logPath}.reactors.lock`;

/** Why the reactor lock was not had; `message` is one line. */
export interface ReactorLockError {
  readonly kind: 'locked' | 'io';
  readonly message: string;
}

/** Takes the reactor lock of `logPath`, or says who holds it. */
export const acquireReactorLock = async (
  logPath: string,
): Promise<Result<HeldLock, ReactorLockError>> => {
  const lockPath = reactorLockPathOf(logPath);
  const acquired = await acquireWriterLock(lockPath, lockTiming(undefined));
  if ('held' in acquired) return ok(acquired.held);
  const refusal = acquired.refused;
  if (refusal.kind === 'io') {
    const cause = refusal.cause instanceof Error ? refusal.cause.message : String(refusal.cause);
    return err({ kind: 'io', message: `${lockPath}: ${cause}` });
  }
  const holder =
    refusal.holder === undefined
      ? 'another process'
      : `pid ${refusal.holder.pid} on ${visibleText(refusal.holder.host)} since ${visibleText(refusal.holder.since)}`;
  const beat =
    refusal.heartbeatAgeMs === undefined
      ? ''
      : `, heartbeat ${seconds(refusal.heartbeatAgeMs)} ago`;
  return err({
    kind: 'locked',
    message:
      `the reactors of ${logPath} are run by ${holder}${beat} (${lockPath}): one 'signfold react' ` +
      `per log at a time; stop it first (if it is gone from another host, 'signfold unlock ${lockPath.slice(0, -'.lock'.length)}' removes the lock)`,
  });
};
