import type { LogError } from '../engine/event-log.js';

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
