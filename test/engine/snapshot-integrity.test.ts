import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { signRequestId } from '../../src/core/ids.js';
import { createProjector } from '../../src/engine/projector.js';
import { restoreProjector, takeSnapshot } from '../../src/engine/snapshot.js';

const projectorWith = (count: number) => {
  const projector = createProjector();
  const types = ['participant-sent', 'participant-viewed', 'participant-signed'] as const;
  for (let i = 0; i < count; i += 1) {
    projector.apply({ position: i + 1, event: buildEvent(types[i % 3] ?? 'participant-sent') });
  }
  return projector;
};

describe('snapshot integrity', () => {
  it('a snapshot does not change when its projector moves on', () => {
    const projector = projectorWith(1);
    const snapshot = takeSnapshot(projector);
    const before = JSON.stringify(snapshot);
    projector.apply({ position: 2, event: buildEvent('participant-viewed') });
    expect(JSON.stringify(snapshot)).toBe(before);
    // Restoring it and replaying the tail does not duplicate history.
    const restored = restoreProjector(JSON.parse(before))._unsafeUnwrap();
    restored.apply({ position: 2, event: buildEvent('participant-viewed') });
    expect(restored.signRequestHistory(signRequestId(1000)).map((e) => e.position)).toEqual([1, 2]);
  });

  it.each([
    [
      'templates',
      [{ id: 1, companyId: 1, name: 'T', ownerId: 1, ownerName: 'O', status: 'toString' }],
      'templates[0].status',
    ],
    [
      'signRequests',
      [{ id: 1, companyId: 1, name: 'R', status: 'sent', deleted: 'no' }],
      'signRequests[0].deleted',
    ],
    [
      'participants',
      [
        {
          signRequestId: 1,
          companyId: 1,
          name: 'P',
          status: 'sent',
          viewCount: 0,
          downloadCount: 0,
        },
      ],
      'participants[0].id',
    ],
    [
      'participants',
      [
        {
          signRequestId: 1,
          id: 2,
          companyId: 1,
          name: 'P',
          status: 'sent',
          viewCount: -1,
          downloadCount: 0,
        },
      ],
      'participants[0].viewCount',
    ],
    ['quarantine', [1, 2, 'x'], 'quarantine[0]'],
    [
      'audit',
      { signRequests: [[1, [{ position: 1, type: 'nope', outcome: 'applied' }]]], templates: [] },
      'audit.signRequests[0][1][0].type',
    ],
  ])('a snapshot whose %s are malformed is refused, naming %s', (key, value, path) => {
    const snapshot = {
      ...JSON.parse(JSON.stringify(takeSnapshot(projectorWith(3)))),
      [key]: value,
    };
    const restored = restoreProjector(snapshot);
    expect(restored.isErr() && restored.error.kind).toBe('snapshot-invalid');
    expect(restored.isErr() && restored.error.message).toContain(path);
  });
});

describe('counters', () => {
  it('a restored projector continues the counters of its snapshot', () => {
    const projector = projectorWith(3);
    projector.apply({ position: 4, event: { type: 'nope' } });
    const restored = restoreProjector(JSON.parse(JSON.stringify(takeSnapshot(projector))));
    expect(restored._unsafeUnwrap().stats()).toEqual(projector.stats());
    expect(projector.stats()).toMatchObject({ applied: 3, invalid: 1 });
  });

  it('a snapshot without counters restores with zeros; malformed counters are refused', () => {
    const { stats: _omitted, ...withoutStats } = JSON.parse(
      JSON.stringify(takeSnapshot(projectorWith(2))),
    );
    expect(restoreProjector(withoutStats)._unsafeUnwrap().stats().applied).toBe(0);
    const bad = restoreProjector({ ...withoutStats, stats: { applied: -1 } });
    expect(bad.isErr() && bad.error.message).toContain('stats.applied');
  });
});

describe('positions', () => {
  it.each([Number.NaN, Number.POSITIVE_INFINITY, 1.5, -3])(
    'apply refuses position %s',
    (position) => {
      const projector = projectorWith(1);
      expect(() => projector.apply({ position, event: buildEvent('participant-viewed') })).toThrow(
        RangeError,
      );
      expect(projector.checkpoint).toBe(1);
    },
  );

  it('replay refuses an invalid until', async () => {
    const projector = createProjector();
    const log = { read: async function* () {} };
    await expect(projector.replay(log, { until: Number.NaN })).rejects.toThrow(RangeError);
  });
});
