/**
 * `signfold serve --log FILE`: the file log opened for appending, with its
 * writer lock, so a second `serve` (or any other writer) on the same file is
 * refused at start with one line.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { type ExclusiveFileEventLog, openFileEventLogFor } from '../../store/file-event-log.js';
import { CliError } from '../cli-error.js';
import type { ServeStorage } from './storage.js';

/** A file's identity: a lock file or log replaced behind our back has another. */
const identityOf = async (path: string): Promise<string | undefined> => {
  try {
    const info = await stat(path, { bigint: true });
    return `${info.dev}:${info.ino}`;
  } catch {
    return undefined;
  }
};

/** Serve's file log: also a step with the appends held back (`forget` through serve). */
export interface FileServeStorage extends ServeStorage {
  /** The open log itself, without serve's deadline. */
  readonly fileLog: ExclusiveFileEventLog;
  /** See {@link ExclusiveFileEventLog.exclusive}; `/readyz` says not ready meanwhile. */
  exclusive<T>(step: () => Promise<T>, what: string): Promise<T>;
}

/**
 * Opens `path` (created if missing) for appending with fsync and group
 * commit. Throws a {@link CliError} (exit 2) when it cannot: another writer
 * holds it (the message says who and what to do), or the file system refused.
 * `onTornTail` hears of a torn last line that opening set aside.
 */
export const openFileStorage = async (
  path: string,
  onTornTail: (message: string) => void,
): Promise<FileServeStorage> => {
  const opened = await openFileEventLogFor(undefined, path);
  if (opened.isErr()) {
    const { error } = opened;
    if (error.kind === 'locked') {
      throw new CliError(
        `cannot serve ${path}: ${error.message}. One serve per file log: to run several, share one PostgreSQL database (--database URL)`,
      );
    }
    throw new CliError(`cannot serve ${path}: ${error.message}`);
  }
  const log = opened.value;
  if (log.tornTail !== undefined) {
    const { line, bytes, setAsideTo } = log.tornTail;
    onTornTail(
      `${path}: a torn last line (line ${line}, ${bytes} bytes) was moved to ${setAsideTo}`,
    );
  }
  const lockPath = `${path}.lock`;
  // What "still ours" means for /readyz: the same lock file and the same log file as at open.
  const identities = await Promise.all([identityOf(lockPath), identityOf(path)]);
  const lockId = identities[0];
  let logId = identities[1];
  let closing: Promise<void> | undefined;
  /** What holds the appends back now, if anything. */
  let holding: string | undefined;
  return {
    log,
    fileLog: log,
    description: `file log ${path}`,
    exclusive: async (step, what) => {
      try {
        return await log.exclusive(async () => {
          holding = what;
          return step();
        });
      } finally {
        // The step may have renamed a rewritten log over the old one: that is now the log.
        logId = await identityOf(path);
        holding = undefined;
      }
    },
    probe: async () => {
      if (closing !== undefined) return 'stopping';
      if (holding !== undefined) return `appends are held back while ${holding} runs`;
      if ((await identityOf(lockPath)) !== lockId) return `lost the writer lock ${lockPath}`;
      if ((await identityOf(path)) !== logId) return `${path} was removed or replaced`;
      try {
        await access(path, constants.W_OK);
      } catch {
        return `${path} is not writable`;
      }
      return undefined;
    },
    close: () => {
      closing ??= log.close().catch(() => undefined);
      return closing;
    },
  };
};
