/**
 * The errors every log implementation shares: a closed log, and a read that
 * cannot continue (an `AsyncIterable` has no Result channel).
 */
import type { AppendRefusal, LogFailure } from './event-log.js';

/** The error every operation on a closed log returns. */
export const closedError = (what: string): AppendRefusal => ({
  kind: 'closed',
  message: `${what}: the event log is closed`,
});

/**
 * Thrown from `read()` iterations. An `AsyncIterable` has no Result channel,
 * so a read that cannot continue (file vanished, disk error, closed log)
 * throws this, carrying the same kind of error an append would return (the
 * log's own: a file log's `io`, PostgreSQL's `database`, ...).
 */
export class EventLogReadError<E extends LogFailure = LogFailure> extends Error {
  /** The structured cause. */
  readonly error: E;

  /** Wraps `error`; the message is the error's message. */
  constructor(error: E) {
    super(error.message);
    this.name = 'EventLogReadError';
    this.error = error;
  }
}
