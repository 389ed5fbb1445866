/**
 * The errors every log implementation shares: a closed log, and a read that
 * cannot continue (an `AsyncIterable` has no Result channel).
 */
import type { LogError } from './event-log.js';

/** The error every operation on a closed log returns. */
export const closedError = (what: string): LogError => ({
  kind: 'closed',
  message: `${what}: the event log is closed`,
});

/**
 * Thrown from `read()` iterations. An `AsyncIterable` has no Result channel,
 * so a read that cannot continue (file vanished, disk error, closed log)
 * throws this, carrying the same {@link LogError} an append would return.
 */
export class EventLogReadError extends Error {
  /** The structured cause. */
  readonly error: LogError;

  /** Wraps `error`; the message is the error's message. */
  constructor(error: LogError) {
    super(error.message);
    this.name = 'EventLogReadError';
    this.error = error;
  }
}
