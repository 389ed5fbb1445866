/**
 * The written form of a snapshot: one JSON document whose last member is the
 * SHA-256 of the document itself, so a damaged file is refused instead of
 * being restored as another state.
 *
 * The rule (docs/snapshots.md says it for other implementations): the UTF-8
 * bytes end with `,"checksum":"` + 64 lowercase hex digits + `"}`; the digits
 * are the SHA-256 of the whole document with those 64 digits replaced by 64
 * `0`s. Every other byte is covered, the member's name and punctuation too.
 *
 * Pure: the hash function is passed in, so this module stays free of
 * `node:crypto` (the store binds it; a browser can pass its own).
 */
import { err, ok, type Result } from 'neverthrow';
import {
  SNAPSHOT_CHECKSUM_MEMBER,
  type Snapshot,
  type SnapshotError,
  snapshotHeaderProblem,
} from './snapshot.js';

/** SHA-256 of `bytes` as 64 lowercase hex digits. */
export type Sha256Hex = (bytes: Uint8Array) => string;

const DIGITS = 64;
const PLACEHOLDER = '0'.repeat(DIGITS);
const BEFORE = `,"${SNAPSHOT_CHECKSUM_MEMBER}":"`;
const AFTER = '"}';
/** Bytes from the start of the checksum member to the end of the document (all ASCII). */
const TAIL_LENGTH = BEFORE.length + DIGITS + AFTER.length;
const HEX = /^[0-9a-f]{64}$/;

const encoder = new TextEncoder();

const ascii = (bytes: Uint8Array): string => String.fromCharCode(...bytes);

const checksumError = (message: string): SnapshotError => ({
  kind: 'snapshot-checksum',
  message,
});

/** The digest the rule asks for: over `bytes` with the checksum digits set to `0`s. */
const digestOf = (bytes: Uint8Array, sha256: Sha256Hex): string => {
  const covered = Uint8Array.from(bytes);
  const start = covered.length - AFTER.length - DIGITS;
  covered.set(encoder.encode(PLACEHOLDER), start);
  return sha256(covered);
};

/**
 * Serializes a snapshot as its document: `JSON.stringify` of the value, with
 * the checksum member appended last. Throws only what `JSON.stringify` throws
 * (never for a value of `takeSnapshot`).
 */
export const encodeSnapshotDocument = (snapshot: Snapshot, sha256: Sha256Hex): string => {
  const value = JSON.stringify(snapshot);
  const body = `${value.slice(0, -1)}${BEFORE}${PLACEHOLDER}${AFTER}`;
  const digest = sha256(encoder.encode(body));
  if (!HEX.test(digest)) throw new TypeError('sha256 must return 64 lowercase hex digits');
  return `${body.slice(0, -(DIGITS + AFTER.length))}${digest}${AFTER}`;
};

/**
 * Reads a snapshot document: refuses bytes that are not UTF-8, not JSON, not
 * a snapshot of the version this build reads, or whose checksum does not
 * match. On success, the value without its checksum member, for
 * `restoreProjector`.
 */
export const decodeSnapshotDocument = (
  document: Uint8Array | string,
  sha256: Sha256Hex,
): Result<unknown, SnapshotError> => {
  const bytes = typeof document === 'string' ? encoder.encode(document) : document;
  let text: string;
  try {
    // fatal: a damaged byte must not become U+FFFD; ignoreBOM: no byte is dropped unseen.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return err({ kind: 'snapshot-invalid', message: 'not a snapshot (invalid UTF-8)' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    return err({
      kind: 'snapshot-invalid',
      message: `not JSON (${(cause as Error).message})`,
    });
  }
  // The header first: an old or foreign document deserves its own message, not "damaged".
  const header = snapshotHeaderProblem(value);
  if (header !== undefined) return err(header);
  const tail = bytes.length >= TAIL_LENGTH ? ascii(bytes.subarray(-TAIL_LENGTH)) : '';
  const written = tail.slice(BEFORE.length, BEFORE.length + DIGITS);
  if (!tail.startsWith(BEFORE) || !tail.endsWith(AFTER) || !HEX.test(written)) {
    return err(
      checksumError(
        `snapshot has no valid "${SNAPSHOT_CHECKSUM_MEMBER}" member at its end; the file is damaged or was edited`,
      ),
    );
  }
  if (digestOf(bytes, sha256) !== written) {
    return err(
      checksumError(
        'snapshot checksum does not match its content; the file is damaged or was edited',
      ),
    );
  }
  const { [SNAPSHOT_CHECKSUM_MEMBER]: _verified, ...rest } = value as Record<string, unknown>;
  return ok(rest);
};
