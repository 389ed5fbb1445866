/**
 * When each sign request was sent and finished, read from the audit trail:
 * the engine already recorded, for every event, its `receivedAt` and what it
 * did (applied, no-op, conflict), so no status rule is judged again here.
 */
import type { AuditEntry, AuditTrailData } from '../engine/audit-trail.js';

/** The times of one sign request, in epoch milliseconds. */
export interface RequestTimes {
  /** Its first applied `sign-request-sent`, else its first applied event; `undefined` without `receivedAt`. */
  readonly sentAt: number | undefined;
  /** Its first applied `sign-request-completed` or `sign-request-declined`. */
  readonly finishedAt: number | undefined;
  readonly outcome: 'completed' | 'declined' | undefined;
}

/** `Date.parse` of a `receivedAt`, or `undefined` for none or an unparsable one (the log is untrusted). */
export const receivedTime = (receivedAt: string | undefined): number | undefined => {
  if (receivedAt === undefined) return undefined;
  const ms = Date.parse(receivedAt);
  return Number.isFinite(ms) ? ms : undefined;
};

const timesOf = (entries: readonly AuditEntry[]): RequestTimes => {
  let firstApplied: number | undefined;
  let sentAt: number | undefined;
  let finishedAt: number | undefined;
  let outcome: RequestTimes['outcome'];
  let seenApplied = false;
  for (const entry of entries) {
    if (entry.outcome !== 'applied') continue;
    if (!seenApplied) {
      seenApplied = true;
      firstApplied = receivedTime(entry.receivedAt);
    }
    if (entry.type === 'sign-request-sent' && sentAt === undefined) {
      sentAt = receivedTime(entry.receivedAt);
    } else if (
      outcome === undefined &&
      (entry.type === 'sign-request-completed' || entry.type === 'sign-request-declined')
    ) {
      // Only the first applied one moved the status: a later one applied only renames.
      outcome = entry.type === 'sign-request-completed' ? 'completed' : 'declined';
      finishedAt = receivedTime(entry.receivedAt);
    }
  }
  return { sentAt: sentAt ?? firstApplied, finishedAt, outcome };
};

/** The times of every sign request the audit trail knows, by id. */
export const requestTimesOf = (audit: AuditTrailData): ReadonlyMap<number, RequestTimes> => {
  const times = new Map<number, RequestTimes>();
  for (const [id, entries] of audit.signRequests) times.set(id, timesOf(entries));
  return times;
};
