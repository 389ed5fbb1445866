import { readFile } from 'node:fs/promises';
import { err, ok, type Result } from 'neverthrow';
import type { Snapshot, SnapshotError } from '../engine/snapshot.js';
import { replaceFile } from './replace-file.js';
import { decodeSnapshot, encodeSnapshot } from './snapshot-checksum.js';

/** Why a snapshot file could not be written or read. */
export interface SnapshotFileError {
  readonly kind: 'snapshot-io' | SnapshotError['kind'];
  readonly path: string;
  readonly code: string | undefined;
  readonly message: string;
}

const ioError = (path: string, cause: unknown): SnapshotFileError => {
  const e = cause as NodeJS.ErrnoException;
  return { kind: 'snapshot-io', path, code: e.code, message: `${path}: ${e.message}` };
};

/**
 * Writes a snapshot atomically (`replaceFile`: a temporary sibling, fsynced,
 * renamed over `path`, the directory fsynced). A crash leaves either the old
 * snapshot or the new one, never half, plus a temporary file that the next
 * write of the same `path` removes.
 */
export const writeSnapshotFile = async (
  path: string,
  snapshot: Snapshot,
): Promise<Result<void, SnapshotFileError>> => {
  try {
    // Serialised before the first await: the caller's projector may move on meanwhile.
    await replaceFile(path, encodeSnapshot(snapshot));
    return ok(undefined);
  } catch (cause) {
    return err(ioError(path, cause));
  }
};

/**
 * Reads a snapshot file and verifies it (UTF-8, format, version, checksum);
 * restore the value with `restoreProjector`.
 */
export const readSnapshotFile = async (
  path: string,
): Promise<Result<unknown, SnapshotFileError>> => {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (cause) {
    return err(ioError(path, cause));
  }
  return decodeSnapshot(bytes).mapErr((e) => ({
    kind: e.kind,
    path,
    code: undefined,
    message: `${path}: ${e.message}`,
  }));
};
