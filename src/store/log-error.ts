import type { LogError } from '../engine/event-log.js';

/** Narrowing helper: `node:fs` errors carry their errno name in `code`. */
const errnoCode = (cause: unknown): string | undefined => {
  if (typeof cause === 'object' && cause !== null && 'code' in cause) {
    const { code } = cause as { readonly code: unknown };
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
};

/** Turns whatever a file operation threw into an `io` {@link LogError}, keeping the errno code. */
export const ioError = (cause: unknown, path: string, doing: string): LogError => {
  const code = errnoCode(cause);
  const detail = cause instanceof Error ? cause.message : String(cause);
  return { kind: 'io', code, path, message: `${doing} ${path} failed: ${detail}` };
};

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
