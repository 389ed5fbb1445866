import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { FOLD_RULES_VERSION } from '../../src/core/fold-rules.js';
import { signRequestId } from '../../src/core/ids.js';
import { createProjector } from '../../src/engine/projector.js';
import {
  restoreProjector,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  type Snapshot,
  takeSnapshot,
} from '../../src/engine/snapshot.js';
import { readSnapshotFile, writeSnapshotFile } from '../../src/store/snapshot-file.js';
import {
  checkpointUntil,
  RECORD_NUMBERINGS,
  rawStreamArb,
  recordsLog,
  recordsOf,
  type StreamItem,
  summarize,
} from '../support/engine-arbitraries.js';

const dirs: string[] = [];
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'signfold-snapshot-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const through = (snapshot: Snapshot): unknown => JSON.parse(JSON.stringify(snapshot));

const sample: StreamItem[] = [
  { kind: 'value', value: buildEvent('template-activated') },
  { kind: 'value', value: buildEvent('participant-sent') },
  { kind: 'bad-line', text: '{"type":' },
  { kind: 'value', value: buildEvent('participant-sent', { companyId: 2 }) },
  { kind: 'value', value: { type: 'nope' } },
  { kind: 'value', value: buildEvent('participant-signed') },
];

describe('snapshots', () => {
  it.each(RECORD_NUMBERINGS)(
    'restore + tail replay equals a full replay, whatever the cut point (bad lines with %s)',
    async (_, numbering) => {
      await fc.assert(
        fc.asyncProperty(
          rawStreamArb({ badLines: true }).chain((items) =>
            fc.tuple(fc.constant(items), fc.integer({ min: 0, max: items.length })),
          ),
          async ([items, cut]) => {
            const records = numbering(items);
            const log = recordsLog(records);
            const whole = createProjector();
            await whole.replay(log);

            const head = createProjector();
            await head.replay(log, { until: cut });
            const restored = restoreProjector(through(takeSnapshot(head)))._unsafeUnwrap();
            expect(restored.checkpoint).toBe(checkpointUntil(records, cut));
            await restored.replay(log);
            expect(summarize(restored)).toEqual(summarize(whole));
            // Counters continue from the snapshot; reading anything twice would inflate them.
            expect(restored.stats()).toEqual(whole.stats());
          },
        ),
        { numRuns: 60 },
      );
    },
  );

  it('holds format, version, checkpoint, flat record lists, audit and quarantine', async () => {
    const projector = createProjector();
    await projector.replay(recordsLog(recordsOf(sample)));
    const snapshot = takeSnapshot(projector);
    expect(snapshot).toMatchObject({
      format: 'signfold.snapshot',
      version: 4,
      checkpoint: 6,
      foldedWith: { rules: FOLD_RULES_VERSION, strict: false, upcasters: [] },
    });
    expect(snapshot.templates.map((t) => t.id)).toEqual([100]);
    expect(snapshot.signRequests.map((r) => [r.id, r.status])).toEqual([[1000, 'sent']]);
    expect(snapshot.participants.map((p) => [p.signRequestId, p.id, p.status])).toEqual([
      [1000, 5, 'signed'],
    ]);
    expect(snapshot.quarantine.map((q) => [q.position, q.reason.kind])).toEqual([
      [3, 'bad-line'],
      [4, 'conflict'],
      [5, 'invalid-event'],
    ]);
    expect(snapshot.audit?.signRequests[0]?.[1].map((e) => e.outcome)).toEqual([
      'applied',
      'company-mismatch',
      'applied',
    ]);
    expect(createProjector({ audit: false }).auditTrail()).toBeUndefined();
    expect(takeSnapshot(createProjector({ audit: false })).audit).toBeNull();
  });

  it('restored records are frozen and further events apply to them', async () => {
    const projector = createProjector();
    await projector.replay(recordsLog(recordsOf(sample)));
    const restored = restoreProjector(through(takeSnapshot(projector)))._unsafeUnwrap();
    const request = restored.getSignRequest(signRequestId(1000));
    expect(Object.isFrozen(request)).toBe(true);
    expect(
      restored.apply({ position: 7, event: buildEvent('sign-request-completed') }).isOk(),
    ).toBe(true);
    expect(restored.getSignRequest(signRequestId(1000))?.status).toBe('completed');
    expect(request?.status).toBe('sent');
  });

  it('restoring with audit: false drops the trails', async () => {
    const projector = createProjector();
    await projector.replay(recordsLog(recordsOf(sample)));
    const restored = restoreProjector(through(takeSnapshot(projector)), { audit: false });
    expect(restored._unsafeUnwrap().auditTrail()).toBeUndefined();
    expect(restored._unsafeUnwrap().state()).toEqual(projector.state());
  });

  it('refuses an unknown format version, naming it', () => {
    const snapshot = { ...(through(takeSnapshot(createProjector())) as object), version: 5 };
    const refused = restoreProjector(snapshot)._unsafeUnwrapErr();
    expect(refused.kind).toBe('snapshot-version');
    expect(refused.message).toContain('version 5');
    expect(refused.message).toContain(`versions 2 to ${SNAPSHOT_VERSION}`);
    const missing = { ...snapshot, version: undefined };
    expect(restoreProjector(missing)._unsafeUnwrapErr().kind).toBe('snapshot-version');
  });

  it('refuses what is not a snapshot, without throwing', () => {
    const valid = through(takeSnapshot(createProjector())) as Record<string, unknown>;
    const cases: unknown[] = [
      null,
      42,
      'snapshot',
      [],
      {},
      { ...valid, format: 'other' },
      { ...valid, checkpoint: -1 },
      { ...valid, checkpoint: 1.5 },
      { ...valid, checkpoint: '3' },
      { ...valid, templates: 'x' },
      { ...valid, signRequests: [{ name: 'no id' }] },
      { ...valid, participants: [null] },
      { ...valid, quarantine: {} },
      { ...valid, audit: 'x' },
      { ...valid, audit: { signRequests: 1, templates: [] } },
      { ...valid, audit: { signRequests: [[1000, 'x']], templates: [] } },
    ];
    for (const value of cases) {
      const result = restoreProjector(value);
      expect(result.isErr(), JSON.stringify(value)).toBe(true);
      expect(result._unsafeUnwrapErr().kind).toBe('snapshot-invalid');
    }
    expect(restoreProjector({ format: 'other', version: 1 })._unsafeUnwrapErr().message).toMatch(
      /not a signfold snapshot/,
    );
    expect(restoreProjector({ ...valid, audit: null }).isOk()).toBe(true);
  });
});

describe('snapshot files', () => {
  it('round-trips through writeSnapshotFile / readSnapshotFile, leaving no temporary file', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.snapshot.json');
    const projector = createProjector();
    await projector.replay(recordsLog(recordsOf(sample)));
    const snapshot = takeSnapshot(projector);
    (await writeSnapshotFile(path, snapshot))._unsafeUnwrap();
    // Overwrite in place: the newer snapshot replaces the older one.
    projector.apply({ position: 7, event: buildEvent('sign-request-completed') });
    (await writeSnapshotFile(path, takeSnapshot(projector)))._unsafeUnwrap();
    expect(await readdir(dir)).toEqual(['state.snapshot.json']);

    const read = (await readSnapshotFile(path))._unsafeUnwrap();
    expect(read).toMatchObject({ format: SNAPSHOT_FORMAT, checkpoint: 7 });
    const restored = restoreProjector(read)._unsafeUnwrap();
    expect(summarize(restored)).toEqual(summarize(projector));
  });

  it('reports a missing file as snapshot-io with code ENOENT', async () => {
    const path = join(await tempDir(), 'missing.json');
    const error = (await readSnapshotFile(path))._unsafeUnwrapErr();
    expect(error).toMatchObject({ kind: 'snapshot-io', code: 'ENOENT', path });
    expect(error.message).toContain(path);
  });

  it('reports a file that is not JSON as snapshot-invalid', async () => {
    const path = join(await tempDir(), 'torn.json');
    await writeFile(path, '{"format":"signfold.snapshot","ver');
    expect((await readSnapshotFile(path))._unsafeUnwrapErr()).toMatchObject({
      kind: 'snapshot-invalid',
      path,
    });
  });

  it('fails cleanly into a missing directory, leaving nothing behind', async () => {
    const dir = await tempDir();
    const path = join(dir, 'nope', 'state.json');
    const error = (
      await writeSnapshotFile(path, takeSnapshot(createProjector()))
    )._unsafeUnwrapErr();
    expect(error).toMatchObject({ kind: 'snapshot-io', code: 'ENOENT' });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('snapshot versions 2 and 3', () => {
  it('a version-3 snapshot keeps the views’ times; a version-2 one restores them as null', async () => {
    const projector = createProjector();
    projector.apply({
      position: 1,
      receivedAt: '2026-01-01T00:00:00.000Z',
      event: buildEvent('sign-request-sent'),
    });
    projector.apply({
      position: 2,
      receivedAt: '2026-01-02T00:00:00.000Z',
      event: buildEvent('participant-viewed'),
    });
    const current = through(takeSnapshot(projector)) as Record<string, unknown>;
    const restored = restoreProjector(current)._unsafeUnwrap();
    expect(restored.state()).toEqual(projector.state());
    const request = restored.state().signRequests.get(signRequestId(1000));
    expect(request).toMatchObject({
      sentAt: '2026-01-01T00:00:00.000Z',
      lastEventAt: '2026-01-02T00:00:00.000Z',
    });
    // What version 2 wrote: the same records without the times.
    const strip = ({
      sentAt: _s,
      viewedAt: _v,
      lastEventAt: _l,
      ...rest
    }: Record<string, unknown>) => rest;
    const old = {
      ...current,
      version: 2,
      signRequests: (current.signRequests as Record<string, unknown>[]).map(strip),
      participants: (current.participants as Record<string, unknown>[]).map(strip),
    };
    const fromOld = restoreProjector(old)._unsafeUnwrap().state();
    expect(fromOld.signRequests.get(signRequestId(1000))).toMatchObject({
      status: 'sent',
      sentAt: null,
      lastEventAt: null,
    });
    const participant = [...(fromOld.participants.get(signRequestId(1000))?.values() ?? [])][0];
    expect(participant).toMatchObject({
      status: 'viewed',
      viewCount: 1,
      sentAt: null,
      viewedAt: null,
      lastEventAt: null,
    });
    // A time that is not a string is refused, not restored.
    const bad = {
      ...current,
      signRequests: [{ ...(current.signRequests as object[])[0], sentAt: 42 }],
    };
    expect(restoreProjector(bad)._unsafeUnwrapErr().kind).toBe('snapshot-invalid');
  });

  it('keeps the outcome times, and restores a version-4 snapshot written without them as null', () => {
    const projector = createProjector();
    const events = [
      buildEvent('sign-request-sent'),
      buildEvent('participant-sent'),
      buildEvent('participant-signed'),
      buildEvent('sign-request-completed'),
      buildEvent('sign-request-deleted'),
    ];
    events.forEach((event, i) => {
      projector.apply({ position: i + 1, receivedAt: `2026-01-0${i + 1}T00:00:00.000Z`, event });
    });
    const current = through(takeSnapshot(projector)) as Record<string, unknown>;
    expect(restoreProjector(current)._unsafeUnwrap().state()).toEqual(projector.state());
    expect(projector.getSignRequest(1000)).toMatchObject({
      completedAt: '2026-01-04T00:00:00.000Z',
      deletedAt: '2026-01-05T00:00:00.000Z',
      declinedAt: null,
      outcomeFrom: 'event',
    });
    expect(projector.getParticipant(1000, 5)).toMatchObject({
      signedAt: '2026-01-03T00:00:00.000Z',
      outcomeFrom: 'event',
    });
    // What this version wrote before the outcome times: the same records without them.
    const strip = ({
      completedAt: _c,
      declinedAt: _d,
      deletedAt: _x,
      signedAt: _s,
      outcomeFrom: _o,
      ...rest
    }: Record<string, unknown>) => rest;
    const older = {
      ...current,
      signRequests: (current.signRequests as Record<string, unknown>[]).map(strip),
      participants: (current.participants as Record<string, unknown>[]).map(strip),
    };
    const restored = restoreProjector(older)._unsafeUnwrap();
    expect(restored.getSignRequest(1000)).toMatchObject({
      status: 'completed',
      sentAt: '2026-01-01T00:00:00.000Z',
      completedAt: null,
      declinedAt: null,
      deletedAt: null,
      outcomeFrom: null,
    });
    expect(restored.getParticipant(1000, 5)).toMatchObject({ signedAt: null, outcomeFrom: null });
    const bad = {
      ...current,
      participants: [{ ...(current.participants as object[])[0], outcomeFrom: 'guess' }],
    };
    expect(restoreProjector(bad)._unsafeUnwrapErr().message).toMatch(/outcomeFrom is invalid/);
  });
});
