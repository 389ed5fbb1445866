/**
 * The `locked` error of an open refused because another writer holds the
 * log's lock. Lock files are data anyone can write: their text (host, since)
 * goes through {@link visibleText}.
 */

import { visibleText } from '../core/visible-text.js';
import type { LogError } from './log-error.js';
import type { LockRefusal } from './writer-lock.js';

/** A duration for messages: `1.2 s` (never negative, whatever the clocks say). */
export const seconds = (ms: number): string => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;

type HeldRefusal = Extract<LockRefusal, { kind: 'held' }>;

const WRITE_ELSEWHERE =
  'stop or close the other writer first, or read the log without writing (readFileEventLog, the CLI)';

/**
 * A command that must write the log, and what would help its user when the
 * log is taken: for a command, "read the log without writing" is no help.
 */
export interface LockSeeker {
  /** The command as the user typed it: `signfold forget`. */
  readonly command: string;
  /** What to do instead, one clause: `stop serve, forget, start it again`. */
  readonly remedy: string;
}

/** What the user can do, for each reason the lock was kept. */
const advice = (
  path: string,
  refusal: HeldRefusal,
  staleAfterMs: number,
  seeker: LockSeeker | undefined,
): string => {
  const pid = refusal.holder?.pid;
  switch (refusal.because) {
    case 'held-here':
      return (
        seeker?.remedy ??
        `close the other writer of this process first, or read the log without writing (readFileEventLog, the CLI)`
      );
    case 'running':
      return (
        `pid ${pid} still runs on this host, so its lock is kept however old its heartbeat; ${seeker?.remedy ?? WRITE_ELSEWHERE}. ` +
        `If pid ${pid} is not a signfold writer, remove the lock with 'signfold unlock --force ${path}'`
      );
    case 'elsewhere': {
      const old =
        refusal.heartbeatAgeMs !== undefined && refusal.heartbeatAgeMs > staleAfterMs
          ? ` (no heartbeat for over lock.staleAfterMs, ${seconds(staleAfterMs)}: it has probably stopped)`
          : '';
      return (
        `its holder is on another host or in another pid namespace (another container), where ` +
        `signfold cannot tell whether it still runs, so the lock is never broken automatically${old}. ` +
        `Stop that writer, or once sure it no longer runs, remove the lock with 'signfold unlock ${path}'`
      );
    }
    case 'unreadable':
      return (
        `the lock file was not written by signfold, so it is never broken automatically; ` +
        `if no signfold writer runs, remove it with 'signfold unlock ${path}'`
      );
    case 'contended':
      return 'other writers kept taking it over meanwhile; try again';
  }
};

/**
 * The error of an open refused because another writer holds `lockPath`;
 * with `seeker`, the message starts with the command refused and gives its
 * remedy instead of the library's.
 */
export const lockedError = (
  path: string,
  lockPath: string,
  refusal: HeldRefusal,
  staleAfterMs: number,
  seeker?: LockSeeker,
): LogError => {
  const { holder, because, heartbeatAgeMs } = refusal;
  const who =
    holder === undefined
      ? because === 'unreadable'
        ? 'another writer (its lock file is unreadable)'
        : 'another writer'
      : because === 'held-here'
        ? `this process (pid ${holder.pid}) since ${visibleText(holder.since)}`
        : `pid ${holder.pid} on ${visibleText(holder.host)} since ${visibleText(holder.since)}`;
  const beat = heartbeatAgeMs === undefined ? '' : `, heartbeat ${seconds(heartbeatAgeMs)} ago`;
  const refused = seeker === undefined ? '' : `${seeker.command} cannot write: `;
  const message =
    `${refused}event log ${path} is locked by ${who}${beat} (${lockPath}): only one writer may append to a log; ` +
    advice(path, refusal, staleAfterMs, seeker);
  return { kind: 'locked', path, lockPath, holder, heartbeatAgeMs, message };
};
