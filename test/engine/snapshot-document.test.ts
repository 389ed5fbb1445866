/**
 * The written snapshot document (format version 3, checksummed since 2): its checksum rule, checked
 * here by an independent reading of docs/snapshots.md, and what it refuses.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { createProjector, type Projector } from '../../src/engine/projector.js';
import { restoreProjector, SNAPSHOT_VERSION, takeSnapshot } from '../../src/engine/snapshot.js';
import {
  decodeSnapshotDocument,
  encodeSnapshotDocument,
} from '../../src/engine/snapshot-document.js';
import { decodeSnapshot, encodeSnapshot } from '../../src/store/snapshot-checksum.js';
import { readSnapshotFile, writeSnapshotFile } from '../../src/store/snapshot-file.js';
import { removeTempDirs, tempDir } from '../cli/cli-helpers.js';

afterAll(removeTempDirs);

const hex = (bytes: Uint8Array | string): string =>
  createHash('sha256').update(bytes).digest('hex');

/** A projector whose state holds non-ASCII text (a participant named "Zoë"). */
const projector = (): Projector => {
  const p = createProjector();
  p.apply({ position: 1, event: buildEvent('participant-sent', { participantName: 'Zoë' }) });
  p.apply({ position: 2, event: { type: 'nope' } });
  return p;
};

/** `text` with its checksum recomputed by the documented rule, as a forger or a tool would. */
const resealed = (bytes: Uint8Array): Buffer => {
  const zeros = Buffer.from(bytes);
  zeros.write('0'.repeat(64), zeros.length - 66, 'latin1');
  const sealed = Buffer.from(zeros);
  sealed.write(hex(zeros), sealed.length - 66, 'latin1');
  return sealed;
};

describe('snapshot document', () => {
  it('ends with the checksum member: SHA-256 of the document with its 64 digits as 0s', () => {
    const snapshot = takeSnapshot(projector());
    const text = encodeSnapshot(snapshot);
    const match = /,"checksum":"([0-9a-f]{64})"\}$/.exec(text);
    expect(match).not.toBeNull();
    const digits = match?.[1] ?? '';
    const covered = `${text.slice(0, -66)}${'0'.repeat(64)}"}`;
    expect(hex(Buffer.from(covered, 'utf8'))).toBe(digits);
    // Otherwise it is the snapshot value as JSON, checksum last.
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(parsed).at(-1)).toBe('checksum');
    expect(Object.keys(parsed)).toEqual([...Object.keys(snapshot), 'checksum']);
    const { checksum: _checksum, ...value } = parsed;
    expect(value).toEqual(JSON.parse(JSON.stringify(snapshot)));
    expect(value.version).toBe(SNAPSHOT_VERSION);
    expect(SNAPSHOT_VERSION).toBe(4);
  });

  it('decodes its own output, from bytes or text, to the value that restores the state', () => {
    const original = projector();
    const text = encodeSnapshot(takeSnapshot(original));
    for (const document of [text, Buffer.from(text, 'utf8')]) {
      const restored = restoreProjector(decodeSnapshot(document)._unsafeUnwrap())._unsafeUnwrap();
      expect(takeSnapshot(restored)).toEqual(takeSnapshot(original));
    }
  });

  it('takes the hash function as a parameter (the core stays free of node:crypto)', () => {
    const snapshot = takeSnapshot(projector());
    const calls: number[] = [];
    const sha256 = (bytes: Uint8Array): string => {
      calls.push(bytes.length);
      return hex(bytes);
    };
    const text = encodeSnapshotDocument(snapshot, sha256);
    expect(text).toBe(encodeSnapshot(snapshot));
    expect(decodeSnapshotDocument(text, sha256).isOk()).toBe(true);
    expect(calls).toEqual([Buffer.byteLength(text), Buffer.byteLength(text)]);
    // Another function, another digest: the document is refused, not trusted.
    const other = decodeSnapshotDocument(text, (b) => hex(Buffer.concat([b, Buffer.from('x')])));
    expect(other._unsafeUnwrapErr().kind).toBe('snapshot-checksum');
    expect(() => encodeSnapshotDocument(snapshot, () => 'ABC')).toThrow(TypeError);
  });

  it.each([
    [
      'a changed digit of the checkpoint',
      (t: string) => t.replace('"checkpoint":2', '"checkpoint":7'),
    ],
    [
      'an upper-case checksum',
      (t: string) => t.replace(/"([0-9a-f]{64})"\}$/, (_m, h: string) => `"${h.toUpperCase()}"}`),
    ],
    ['a trailing newline', (t: string) => `${t}\n`],
    ['a leading byte order mark', (t: string) => `\uFEFF${t}`],
    ['spaces around the checksum', (t: string) => t.replace(',"checksum":', ', "checksum": ')],
    ['no checksum member', (t: string) => t.replace(/,"checksum":"[0-9a-f]{64}"\}$/, '}')],
    ['the checksum member renamed', (t: string) => t.replace(',"checksum":', ',"checksun":')],
  ])('refuses %s', (_name, edit) => {
    const text = encodeSnapshot(takeSnapshot(projector()));
    const edited = edit(text);
    expect(edited).not.toBe(text);
    const refused = decodeSnapshot(edited)._unsafeUnwrapErr();
    expect(['snapshot-checksum', 'snapshot-invalid']).toContain(refused.kind);
    expect(refused.message).not.toContain('\n');
  });

  it('refuses invalid UTF-8 even under a matching checksum (never read as U+FFFD)', async () => {
    const path = join(await tempDir(), 'state.snapshot.json');
    (await writeSnapshotFile(path, takeSnapshot(projector())))._unsafeUnwrap();
    const bytes = await readFile(path);
    const at = bytes.indexOf(Buffer.from('Zoë', 'utf8'));
    expect(at).toBeGreaterThan(0);
    // "ë" is C3 AB; C3 28 is not UTF-8 (a lead byte without its continuation).
    bytes[at + 3] = 0x28;
    await writeFile(path, resealed(bytes));
    const read = await readSnapshotFile(path);
    expect(read._unsafeUnwrapErr()).toMatchObject({ kind: 'snapshot-invalid', path });
    expect(read._unsafeUnwrapErr().message).toBe(`${path}: not a snapshot (invalid UTF-8)`);
  });

  it('says in one line that a version 1 snapshot (no checksum) is no longer read', async () => {
    const path = join(await tempDir(), 'old.snapshot.json');
    const { checksum: _c, ...value } = JSON.parse(encodeSnapshot(takeSnapshot(projector())));
    await writeFile(path, JSON.stringify({ ...value, version: 1 }));
    const error = (await readSnapshotFile(path))._unsafeUnwrapErr();
    expect(error.kind).toBe('snapshot-version');
    expect(error.message).toBe(
      `${path}: snapshot format version 1 has no checksum and is no longer read (this build reads version 4); replay the log from the start and take a new snapshot`,
    );
    // The same words when the value is handed to restoreProjector directly.
    expect(restoreProjector({ ...value, version: 1 })._unsafeUnwrapErr().message).toBe(
      error.message.slice(path.length + 2),
    );
  });

  it('restoreProjector refuses a parsed document that still carries its checksum (not verified)', () => {
    const text = encodeSnapshot(takeSnapshot(projector()));
    const refused = restoreProjector(JSON.parse(text))._unsafeUnwrapErr();
    expect(refused.kind).toBe('snapshot-checksum');
    expect(refused.message).toMatch(/readSnapshotFile or decodeSnapshot/);
  });

  it('a resealed document with edited content loads: the checksum detects damage, not intent', () => {
    const text = encodeSnapshot(takeSnapshot(projector()));
    const edited = resealed(Buffer.from(text.replace('"checkpoint":2', '"checkpoint":1')));
    expect(
      restoreProjector(decodeSnapshot(edited)._unsafeUnwrap())._unsafeUnwrap().checkpoint,
    ).toBe(1);
  });
});
