import { randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { err, ok, type Result } from 'neverthrow';
import type { Snapshot } from '../engine/snapshot.js';

/** Why a snapshot file could not be written or read. */
export interface SnapshotFileError {
  readonly kind: 'snapshot-io' | 'snapshot-invalid';
  readonly path: string;
  readonly code: string | undefined;
  readonly message: string;
}

const ioError = (path: string, cause: unknown): SnapshotFileError => {
  const e = cause as NodeJS.ErrnoException;
  return { kind: 'snapshot-io', path, code: e.code, message: `${path}: ${e.message}` };
};

/** Flushes a directory entry; some platforms cannot open directories, which is not an error. */
const syncDirectory = async (directory: string): Promise<void> => {
  const handle = await open(directory, 'r').catch(() => undefined);
  if (handle === undefined) return;
  try {
    await handle.sync().catch(() => undefined);
  } finally {
    await handle.close();
  }
};

/**
 * Writes a snapshot atomically: to a temporary sibling, fsynced, renamed over
 * `path`, then the directory fsynced so the rename itself survives a power
 * loss. A crash leaves either the old snapshot or the new one, never half.
 */
export const writeSnapshotFile = async (
  path: string,
  snapshot: Snapshot,
): Promise<Result<void, SnapshotFileError>> => {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    // Serialise before the first await: the caller's projector may move on meanwhile.
    const text = JSON.stringify(snapshot);
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
    await syncDirectory(dirname(path));
    return ok(undefined);
  } catch (cause) {
    await unlink(temporary).catch(() => undefined);
    return err(ioError(path, cause));
  }
};

/** Reads and parses a snapshot file (restore it with `restoreProjector`). */
export const readSnapshotFile = async (
  path: string,
): Promise<Result<unknown, SnapshotFileError>> => {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    return err(ioError(path, cause));
  }
  try {
    return ok(JSON.parse(text));
  } catch (cause) {
    return err({
      kind: 'snapshot-invalid',
      path,
      code: undefined,
      message: `${path}: not JSON (${(cause as Error).message})`,
    });
  }
};
