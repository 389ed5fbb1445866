import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventLog } from '../../src/engine/event-log.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { entriesOf, openLog, readAll, removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

/** One step of a scenario: an append (with an optional, often repeated, delivery id) or a reopen. */
const step = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      event: fc.jsonValue(),
      deliveryId: fc.option(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const) }) },
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/** The model: what a read must return after the steps. */
const expected = (steps: readonly Step[]): readonly (readonly [number, unknown])[] => {
  const seen = new Set<string>();
  const kept: unknown[] = [];
  for (const s of steps) {
    if (s.kind !== 'append') continue;
    if (s.deliveryId !== undefined) {
      if (seen.has(s.deliveryId)) continue;
      seen.add(s.deliveryId);
    }
    // What the log stores is the JSON text, so compare with the JSON round trip (-0 → 0...).
    kept.push(JSON.parse(JSON.stringify(s.event)));
  }
  return kept.map((event, index) => [index + 1, event] as const);
};

const run = async (steps: readonly Step[], open: () => Promise<EventLog>) => {
  let log = await open();
  for (const s of steps) {
    if (s.kind === 'reopen') {
      await log.close();
      log = await open();
    } else {
      const options = s.deliveryId === undefined ? {} : { deliveryId: s.deliveryId };
      expect((await log.append(s.event, options)).isOk()).toBe(true);
    }
  }
  const records = await readAll(log.read());
  await log.close();
  expect(records.every((record) => record.kind === 'entry')).toBe(true);
  return entriesOf(records);
};

// size 'max': fast-check's default size caps arrays at 10 steps whatever maxLength says, which
// leaves few delivery-id repeats after a reopen.
describe('any append sequence reads back as the deduplicated sequence', () => {
  it('memory log', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40, size: 'max' }), async (steps) => {
        // The memory log has nothing to reopen: the same instance is handed back.
        const log = createMemoryEventLog();
        const reusable: EventLog = { ...log, close: async () => undefined };
        expect(await run(steps, async () => reusable)).toEqual(expected(steps));
      }),
      { numRuns: 200 },
    );
  });

  it('file log, across reopens', async () => {
    const dir = await tempDir();
    let counter = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30, size: 'max' }), async (steps) => {
        counter += 1;
        const path = join(dir, `log-${counter}.ndjson`);
        const open = () => openLog(path, { durability: 'none' });
        expect(await run(steps, open)).toEqual(expected(steps));
      }),
      { numRuns: 60 },
    );
  });
});
