/**
 * The log file as a read-only {@link EventLog}: the CLI replays a log without
 * ever opening it for writing, so inspecting a log a webhook server is still
 * appending to is safe, and no torn tail is moved aside behind its back.
 */
import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { err } from 'neverthrow';
import type { EventLog } from '../../engine/event-log.js';
import { readFileEventLog } from '../../store/file-record-stream.js';
import { CliError } from '../cli-error.js';

/** Why a path cannot be read, in the words of `errno`, for one-line messages. */
const describeErrno = (cause: unknown): string => {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'a parent is not a directory';
  return cause instanceof Error ? cause.message : String(cause);
};

/**
 * Checks that `path` is a readable regular file, throwing a
 * {@link CliError} (exit 2) naming it otherwise. `what` names it in messages.
 */
export const ensureReadableFile = async (path: string, what = path): Promise<void> => {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
    await access(path, constants.R_OK);
  } catch (cause) {
    throw new CliError(`${what}: ${describeErrno(cause)}`);
  }
  // Reading a directory fails with EISDIR only on the first read; say it plainly up front.
  if (info.isDirectory()) throw new CliError(`${what}: is a directory`);
  // Logs are read with positioned reads, which pipes and devices do not support.
  if (!info.isFile()) throw new CliError(`${what}: not a regular file`);
};

/**
 * Opens `path` for reading only. Checks it up front; read errors met later
 * surface as `EventLogReadError`s thrown by the iteration.
 */
export const openReadOnlyLog = async (path: string): Promise<EventLog> => {
  await ensureReadableFile(path);
  return {
    // Never called by the CLI; present because the port requires it.
    append: () =>
      Promise.resolve(err({ kind: 'closed', message: `${path} is opened read-only` } as const)),
    read: (options) => readFileEventLog(path, options),
    close: () => Promise.resolve(),
  };
};

/** The file's identity (device and inode, exact as bigints), or `undefined` if it cannot be had. */
const identity = async (path: string): Promise<string | undefined> => {
  try {
    const info = await stat(path, { bigint: true });
    return `${info.dev}:${info.ino}`;
  } catch {
    return undefined;
  }
};

/** `path` with its directory's symbolic links resolved (the file itself may not exist yet). */
const resolvedPath = async (path: string): Promise<string | undefined> => {
  try {
    return await realpath(path);
  } catch {
    try {
      return join(await realpath(dirname(resolve(path))), basename(path));
    } catch {
      return undefined;
    }
  }
};

/**
 * Whether `target` names the same file as `existing` (which exists): the same
 * path once symbolic links are resolved, or the same device and inode (a hard
 * link). Writing to `target` would then replace `existing`.
 */
export const isSameFile = async (target: string, existing: string): Promise<boolean> => {
  const [targetId, existingId] = await Promise.all([identity(target), identity(existing)]);
  if (targetId !== undefined && targetId === existingId) return true;
  const [targetPath, existingPath] = await Promise.all([
    resolvedPath(target),
    resolvedPath(existing),
  ]);
  return targetPath !== undefined && targetPath === existingPath;
};
