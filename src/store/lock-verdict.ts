/**
 * Whether a lock file's holder may still write: the one judgement behind
 * taking over a lock, breaking a `.break` lock and `signfold unlock`. See
 * `docs/log-format.md#one-writer-the-writer-lock`.
 *
 * A lock is broken only when its holder is known to be gone. Heartbeat age
 * never decides it: a writer stalled in a system call, by SIGSTOP or by a long
 * GC pause is still alive, and its pending write would land after the new
 * writer's.
 */
import type { Observed } from './lock-content.js';
import { HOST } from './lock-file.js';
import { bootTimeMs, ownIdentity, recordedProcessRuns } from './process-liveness.js';

/** Tokens of the locks this process holds now, to tell our own lock from a dead twin's with our pid. */
export const heldTokens = new Set<string>();

/** What is known of a lock's holder. Only `gone` lets a lock be broken automatically. */
export type LockVerdict =
  /** This process holds it (an open log, or a takeover in progress). */
  | { readonly kind: 'held-here' }
  /** Its holder runs in this pid namespace (same pid, same start time). */
  | { readonly kind: 'running' }
  /** Its holder is on another host or in another pid namespace: whether it runs cannot be told. */
  | { readonly kind: 'elsewhere' }
  /** The file is not a signfold lock (hand-made, or truncated): whose it is cannot be told. */
  | { readonly kind: 'unreadable' }
  /** Its holder can no longer write, for `reason`. */
  | { readonly kind: 'gone'; readonly reason: string };

/** Judges the holder of a lock in this process's pid namespace. */
const judgeHere = (pid: number, token: string, startTime: string | undefined): LockVerdict => {
  if (pid === process.pid) {
    return heldTokens.has(token)
      ? { kind: 'held-here' }
      : { kind: 'gone', reason: 'left by an earlier process with this pid' };
  }
  return recordedProcessRuns(pid, startTime)
    ? { kind: 'running' }
    : { kind: 'gone', reason: `pid ${pid} no longer runs` };
};

/**
 * Judges an observed lock. Same pid namespace (same boot id and pid namespace
 * as this process; on systems without `/proc`, same host name and no identity
 * recorded): by pid and start time. A lock of this host name from an earlier
 * boot whose last heartbeat predates this boot: gone. Anything else:
 * `elsewhere` or `unreadable`, never broken automatically.
 */
export const judgeLock = (seen: Observed): LockVerdict => {
  const { content } = seen;
  if (content === undefined) return { kind: 'unreadable' };
  const own = ownIdentity();
  const recorded = content.bootId !== undefined && content.pidNamespace !== undefined;
  if (own === undefined) {
    return !recorded && content.host === HOST
      ? judgeHere(content.pid, content.token, undefined)
      : { kind: 'elsewhere' };
  }
  if (!recorded) return { kind: 'elsewhere' };
  if (content.bootId === own.bootId && content.pidNamespace === own.pidNamespace) {
    return judgeHere(content.pid, content.token, content.startTime);
  }
  const bootedAt = bootTimeMs();
  const lastBeat = Date.now() - seen.ageMs;
  if (content.host === HOST && content.bootId !== own.bootId && bootedAt !== undefined) {
    if (lastBeat < bootedAt) return { kind: 'gone', reason: 'left before this host booted' };
  }
  return { kind: 'elsewhere' };
};
