/**
 * The errors of the logs this folder stores (NDJSON file, memory): those of
 * every log, and the file system's and the writer lock's, which only a file
 * log raises.
 */
import type { AppendRefusal } from '../engine/event-log.js';

/** Why an append (or opening a log) failed. Nothing was stored when one is returned. */
export type LogError =
  | AppendRefusal
  /** The file system refused, e.g. `ENOSPC`, `EACCES`, `EIO`; `code` is the errno code. */
  | {
      readonly kind: 'io';
      readonly code: string | undefined;
      readonly path: string;
      readonly message: string;
    }
  /**
   * Another writer holds the log's lock (`<log>.lock`), in this process or
   * another; `holder` is who, when the lock file is readable. Nothing was written.
   */
  | {
      readonly kind: 'locked';
      readonly path: string;
      readonly lockPath: string;
      readonly holder: LockHolder | undefined;
      /** Age of the holder's heartbeat (its lock file's modification time), when it could be read. */
      readonly heartbeatAgeMs: number | undefined;
      readonly message: string;
    }
  /**
   * This writer's lock was removed while the log was open (by hand, or by
   * `signfold unlock`). The append was not written, and no later one will be:
   * reopen the log.
   */
  | {
      readonly kind: 'lock-lost';
      readonly path: string;
      readonly lockPath: string;
      readonly message: string;
    };

/** Who holds a file log's writer lock, as its lock file records. */
export interface LockHolder {
  /** Process id of the holder. */
  readonly pid: number;
  /** Host name of the holder's machine. */
  readonly host: string;
  /** When the holder took the lock (ISO 8601). */
  readonly since: string;
}

/** Narrowing helper: `node:fs` errors carry their errno name in `code`. */
export const errnoCode = (cause: unknown): string | undefined => {
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

/** The error of an append after this writer lost its lock. */
export const lockLostError = (path: string, lockPath: string): LogError => ({
  kind: 'lock-lost',
  path,
  lockPath,
  message: `event log ${path}: this writer no longer holds its lock ${lockPath} (removed by hand or by signfold unlock); nothing was written, reopen the log`,
});
