import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { participantId, signRequestId } from '../../src/core/ids.js';
import type { Change } from '../../src/core/reactors/index.js';
import { defineUpcaster, type Upcaster } from '../../src/core/upcasters/index.js';
import { createProjector, encodeEvent, restoreProjector, takeSnapshot } from '../../src/index.js';
import { createMemoryEventLog } from '../../src/store/index.js';
import { events } from '../../src/testing/index.js';
import {
  rawStreamArb,
  recordsLog,
  recordsOf,
  type StreamItem,
} from '../support/engine-arbitraries.js';

const id = signRequestId(1000);
const sent = encodeEvent(events.signRequestSent());
const participantSent = encodeEvent(events.participantSent());
const signed = encodeEvent(events.participantSigned());

const logOf = async (...values: unknown[]) => {
  const log = createMemoryEventLog();
  for (const value of values) await log.append(value);
  return log;
};

/** The wire the "older service" of these tests writes: the type prefixed, signRequestId spelled requestId. */
const OLD = 'old:';
const downcast = (wire: Record<string, unknown>): Record<string, unknown> => {
  const { signRequestId: requestId, ...rest } = wire;
  return {
    ...rest,
    type: `${OLD}${String(wire.type)}`,
    ...(requestId === undefined ? {} : { requestId }),
  };
};
const isOld = (wire: unknown): boolean =>
  typeof wire === 'object' &&
  wire !== null &&
  typeof (wire as { type?: unknown }).type === 'string' &&
  (wire as { type: string }).type.startsWith(OLD);
const upgrade = defineUpcaster({
  name: 'old-service',
  from: isOld,
  to: ({ type, requestId, ...rest }) => ({
    ...rest,
    type: String(type).slice(OLD.length),
    ...(requestId === undefined ? {} : { signRequestId: requestId }),
  }),
});

describe('upcasters in the projector', () => {
  it('applies a renamed member and records which upcaster made the event', async () => {
    const projector = createProjector({ upcasters: [upgrade] });
    (await projector.replay(await logOf(downcast(sent), participantSent)))._unsafeUnwrap();
    expect(projector.getSignRequest(id)?.status).toBe('sent');
    const history = projector.signRequestHistory(id);
    expect(history.map((e) => e.upcastBy)).toEqual([['old-service'], undefined]);
    expect(projector.stats()).toMatchObject({ applied: 2, invalid: 0 });
  });

  it('drops a record for [] (a no-op that moves the checkpoint), and maps a new type onto a known one', async () => {
    const drop = defineUpcaster({
      name: 'drop-expired',
      from: 'sign-request-expired',
      to: () => [],
    });
    const projector = createProjector({ upcasters: [drop] });
    await projector.replay(
      await logOf(sent, { type: 'sign-request-expired', signRequestId: 1000 }),
    );
    expect(projector.checkpoint).toBe(2);
    expect(projector.stats()).toMatchObject({ applied: 1, noOps: 1, invalid: 0 });
    expect(projector.quarantine()).toEqual([]);
  });

  it('applies several events of one record in order at its position, once each for reactors with distinct places', async () => {
    const fanOut = defineUpcaster({
      name: 'fan-out',
      from: 'bundle',
      to: () => [participantSent, signed],
    });
    const changes: Change[] = [];
    const projector = createProjector({ upcasters: [fanOut], onApplied: (c) => changes.push(c) });
    await projector.replay(await logOf(sent, { type: 'bundle' }));
    expect(projector.getParticipant(id, participantId(5))?.status).toBe('signed');
    expect(changes.map((c) => [c.event.type, c.position, c.upcast])).toEqual([
      ['sign-request-sent', 1, undefined],
      ['participant-sent', 2, { by: ['fan-out'], index: 0, count: 2 }],
      ['participant-signed', 2, { by: ['fan-out'], index: 1, count: 2 }],
    ]);
    // One record, counted once.
    expect(projector.stats()).toMatchObject({ applied: 2, noOps: 0 });
    expect(projector.checkpoint).toBe(2);
  });

  it('quarantines a record whose upcaster throws, or makes what does not decode, naming the upcaster', async () => {
    const thrower = defineUpcaster({
      name: 'thrower',
      from: 'a',
      to: () => {
        throw new Error('no way');
      },
    });
    const broken = defineUpcaster({
      name: 'broken',
      from: 'b',
      to: () => ({ type: 'participant-signed' }),
    });
    const projector = createProjector({ upcasters: [thrower, broken] });
    await projector.replay(await logOf({ type: 'a' }, { type: 'b' }, sent));
    const reasons = projector
      .quarantine()
      .map((q) => [q.position, q.reason.kind, q.reason.message, q.raw]);
    expect(reasons).toEqual([
      [
        1,
        'invalid-event',
        'upcaster "thrower" threw: no way',
        expect.stringContaining('"event":{"type":"a"}'),
      ],
      [
        2,
        'invalid-event',
        expect.stringMatching(/^after upcaster "broken": companyId: missing member/),
        expect.stringContaining('"event":{"type":"b"}'),
      ],
    ]);
    expect(projector.getSignRequest(id)?.status).toBe('sent');
  });

  it('halts on a failing upcaster under the halt policy, before the record', async () => {
    const thrower = defineUpcaster({ name: 'thrower', from: 'a', to: () => undefined });
    const projector = createProjector({ upcasters: [thrower], policy: 'halt' });
    const replayed = await projector.replay(await logOf(sent, { type: 'a' }));
    expect(replayed._unsafeUnwrapErr()).toMatchObject({ kind: 'halted', position: 2 });
    expect(projector.checkpoint).toBe(1);
  });

  it('under halt, stops inside a record of several events without moving the checkpoint, and applies none twice when run again', async () => {
    const viewed = encodeEvent(events.participantViewed());
    // Company 2 naming company 1's request: a conflict, after the view.
    const foreign = { ...encodeEvent(events.participantViewed()), companyId: 2 };
    const fanOut = defineUpcaster({
      name: 'fan-out',
      from: 'bundle',
      to: () => [viewed, foreign, viewed],
    });
    const projector = createProjector({ upcasters: [fanOut], policy: 'halt' });
    const log = await logOf(sent, participantSent, { type: 'bundle' });
    for (let run = 0; run < 2; run += 1) {
      const replayed = await projector.replay(log);
      expect(replayed._unsafeUnwrapErr()).toMatchObject({ kind: 'halted', position: 3 });
      expect(projector.checkpoint).toBe(2);
      expect(projector.getParticipant(id, participantId(5))?.viewCount).toBe(1);
    }
  });

  it('refuses a bad upcaster, or two of one name, when the projector is created', () => {
    // biome-ignore lint/suspicious/noExplicitAny: a bad option on purpose.
    expect(() => createProjector({ upcasters: [{ name: 'x', from: 1 } as any] })).toThrow(
      TypeError,
    );
    expect(() => createProjector({ upcasters: [upgrade, upgrade] })).toThrow(
      'two upcasters are named "old-service"',
    );
  });

  it('keeps upcastBy through a snapshot', async () => {
    const projector = createProjector({ upcasters: [upgrade] });
    await projector.replay(await logOf(downcast(sent)));
    const restored = restoreProjector(JSON.parse(JSON.stringify(takeSnapshot(projector))), {
      upcasters: [upgrade],
    })._unsafeUnwrap();
    expect(restored.signRequestHistory(id)).toEqual(projector.signRequestHistory(id));
    expect(restored.signRequestHistory(id)[0]?.upcastBy).toEqual(['old-service']);
  });
});

/** Everything replay decides, but for the audit's upcastBy and the quarantine's texts (the stored lines differ). */
const verdicts = async (
  upcasters: readonly Upcaster[],
  items: readonly StreamItem[],
  times?: readonly string[],
) => {
  const projector = createProjector({ upcasters });
  const records = recordsOf(items).map((r, i) =>
    r.kind === 'entry' && times !== undefined ? { ...r, receivedAt: times[i] } : r,
  );
  (await projector.replay(recordsLog(records)))._unsafeUnwrap();
  const audit = JSON.parse(JSON.stringify(projector.auditTrail()?.toData()), (key, value) =>
    key === 'upcastBy' ? undefined : value,
  );
  return {
    state: projector.state(),
    checkpoint: projector.checkpoint,
    stats: projector.stats(),
    quarantine: projector.quarantine().map((q) => [q.position, q.reason.kind]),
    audit,
  };
};

describe('law: replay with upcasters equals replay of the log rewritten by hand', () => {
  it('holds over random logs where random lines are in the older shape', async () => {
    const arb = rawStreamArb({ badLines: true }).chain((items) =>
      fc.tuple(
        fc.constant(items),
        fc.array(fc.boolean(), { minLength: items.length, maxLength: items.length }),
      ),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ([items, old]) => {
        const stored = items.map(
          (item, i): StreamItem =>
            old[i] === true &&
            item.kind === 'value' &&
            typeof item.value === 'object' &&
            item.value !== null &&
            !Array.isArray(item.value) &&
            typeof (item.value as { type?: unknown }).type === 'string'
              ? { kind: 'value', value: downcast(item.value as Record<string, unknown>) }
              : item,
        );
        // By hand: every line the upcaster applies to, rewritten with its `to`.
        const byHand = stored.map(
          (item): StreamItem =>
            item.kind === 'value' && isOld(item.value)
              ? { kind: 'value', value: upgrade.to(item.value as Record<string, unknown>) }
              : item,
        );
        expect(await verdicts([upgrade], stored)).toEqual(await verdicts([], byHand));
      }),
      { numRuns: 150 },
    );
  });

  it('holds for an upcaster that turns a line into several or none, against the lines written out', async () => {
    // A line `{"type":"pair","events":[a, b]}` stands for its events; the hand-written log puts them
    // on lines of their own. Positions then differ, so only the projection and the conflicts count.
    const pair = defineUpcaster({
      name: 'pair',
      from: 'pair',
      to: (wire) => wire.events as unknown[],
    });
    const arb = rawStreamArb().chain((items) =>
      fc.tuple(
        fc.constant(items),
        fc.array(fc.nat({ max: 2 }), { minLength: items.length, maxLength: items.length }),
      ),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ([items, groups]) => {
        const stored: StreamItem[] = [];
        const byHand: StreamItem[] = [];
        // Each written-out line keeps the time of the line it came from.
        const storedTimes: string[] = [];
        const byHandTimes: string[] = [];
        const timeOf = (n: number) => new Date(Date.UTC(2025, 0, 1) + n).toISOString();
        let i = 0;
        while (i < items.length) {
          const size = Math.min(groups[i] ?? 1, items.length - i);
          const group = items.slice(i, i + Math.max(size, 0));
          const values = group.map((item) => (item.kind === 'value' ? item.value : null));
          // Grouping only decodable-looking objects keeps "one value does not decode" out of this law.
          const groupable = values.every(
            (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
          );
          if (size !== 1 && groupable) {
            stored.push({ kind: 'value', value: { type: 'pair', events: values } });
            byHand.push(...group);
            storedTimes.push(timeOf(stored.length));
            for (const _ of group) byHandTimes.push(timeOf(stored.length));
            i += Math.max(size, 1);
          } else {
            stored.push(items[i] as StreamItem);
            byHand.push(items[i] as StreamItem);
            storedTimes.push(timeOf(stored.length));
            byHandTimes.push(timeOf(stored.length));
            i += 1;
          }
        }
        const a = await verdicts([pair], stored, storedTimes);
        const b = await verdicts([], byHand, byHandTimes);
        if (a.stats.invalid === 0 && b.stats.invalid === 0) {
          expect(a.state).toEqual(b.state);
          expect(a.stats.conflicts).toBe(b.stats.conflicts);
        }
      }),
      { numRuns: 100 },
    );
  });
});
