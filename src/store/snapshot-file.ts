import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { err, ok, type Result } from 'neverthrow';
import type { Snapshot, SnapshotError } from '../engine/snapshot.js';
import { processExists } from './process-liveness.js';
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

/** Temporary files this process is writing now, which a cleanup must not touch. */
const inFlight = new Set<string>();
/** A temporary file older than this is stale whatever its pid says (it may be another host's). */
const STALE_TEMPORARY_MS = 60 * 60 * 1000;

/**
 * Removes the temporary files an earlier write of the same `path` left when
 * its process crashed (`<name>.<pid>.<hex>.tmp`): those whose process no
 * longer runs on this host, and any older than an hour. Best effort.
 */
const removeStaleTemporaries = async (path: string): Promise<void> => {
  const directory = dirname(path);
  const prefix = `${basename(path)}.`;
  const names = await readdir(directory).catch(() => [] as string[]);
  for (const name of names) {
    const pid = /^(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name.slice(prefix.length))?.[1];
    if (!name.startsWith(prefix) || pid === undefined) continue;
    const file = join(directory, name);
    if (inFlight.has(file)) continue;
    const info = await stat(file).catch(() => undefined);
    if (info === undefined) continue;
    const mine = Number(pid) === process.pid;
    if (mine || !processExists(Number(pid)) || Date.now() - info.mtimeMs > STALE_TEMPORARY_MS) {
      await unlink(file).catch(() => undefined);
    }
  }
};

/**
 * Writes a snapshot atomically: to a temporary sibling, fsynced, renamed over
 * `path`, then the directory fsynced so the rename itself survives a power
 * loss. A crash leaves either the old snapshot or the new one, never half,
 * plus a temporary file that the next write of the same `path` removes.
 */
export const writeSnapshotFile = async (
  path: string,
  snapshot: Snapshot,
): Promise<Result<void, SnapshotFileError>> => {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await removeStaleTemporaries(path);
  inFlight.add(temporary);
  try {
    // Serialise before the first await: the caller's projector may move on meanwhile.
    const text = encodeSnapshot(snapshot);
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
  } finally {
    inFlight.delete(temporary);
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
