/**
 * `signfold serve --log FILE`: the file log opened for appending, with its
 * writer lock, so a second `serve` (or any other writer) on the same file is
 * refused at start with one line.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { openFileEventLog } from '../../store/file-event-log.js';
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

/**
 * Opens `path` (created if missing) for appending with fsync and group
 * commit. Throws a {@link CliError} (exit 2) when it cannot: another writer
 * holds it (the message says who and what to do), or the file system refused.
 * `onTornTail` hears of a torn last line that opening set aside.
 */
export const openFileStorage = async (
  path: string,
  onTornTail: (message: string) => void,
): Promise<ServeStorage> => {
  const opened = await openFileEventLog(path);
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
  const [lockId, logId] = await Promise.all([identityOf(lockPath), identityOf(path)]);
  let closing: Promise<void> | undefined;
  return {
    log,
    description: `file log ${path}`,
    probe: async () => {
      if (closing !== undefined) return 'stopping';
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
