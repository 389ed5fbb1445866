/**
 * The snapshot document codec bound to `node:crypto`'s SHA-256, for snapshots
 * kept anywhere (a file, an object store, a database column).
 */
import { createHash } from 'node:crypto';
import type { Result } from 'neverthrow';
import type { Snapshot, SnapshotError } from '../engine/snapshot.js';
import { decodeSnapshotDocument, encodeSnapshotDocument } from '../engine/snapshot-document.js';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Serializes a snapshot as its checksummed JSON document (see docs/snapshots.md). */
export const encodeSnapshot = (snapshot: Snapshot): string =>
  encodeSnapshotDocument(snapshot, sha256);

/**
 * Verifies and parses a snapshot document (bytes as stored, or its text):
 * refuses invalid UTF-8, a foreign or old format, and a checksum mismatch.
 * Pass the value to `restoreProjector`.
 */
export const decodeSnapshot = (document: Uint8Array | string): Result<unknown, SnapshotError> =>
  decodeSnapshotDocument(document, sha256);
