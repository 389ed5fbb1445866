import { describe, expect, it } from 'vitest';
import { EventLogReadError } from '../../src/engine/log-errors.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { entriesOf, readAll } from './fixtures/log-helpers.js';

describe('createMemoryEventLog', () => {
  it('assigns positions, records envelopes and reads from a position', async () => {
    const log = createMemoryEventLog({ now: () => new Date('2025-01-01T00:00:00.000Z') });
    expect((await log.append({ a: 1 }))._unsafeUnwrap()).toEqual({
      kind: 'appended',
      position: 1,
      receivedAt: '2025-01-01T00:00:00.000Z',
    });
    await log.append({ a: 2 }, { deliveryId: 'd' });
    await log.append({ a: 3 });
    const records = await readAll(log.read());
    expect(records[1]).toEqual({
      kind: 'entry',
      position: 2,
      line: 2,
      receivedAt: '2025-01-01T00:00:00.000Z',
      deliveryId: 'd',
      event: { a: 2 },
      raw: '{"position":2,"receivedAt":"2025-01-01T00:00:00.000Z","deliveryId":"d","event":{"a":2}}',
    });
    expect(entriesOf(await readAll(log.read({ fromPosition: 3 })))).toEqual([[3, { a: 3 }]]);
    expect(log.lastPosition).toBe(3);
  });

  it('is idempotent per delivery id and serializes concurrent appends', async () => {
    const log = createMemoryEventLog();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => log.append({ i }, { deliveryId: `d${i % 25}` })),
    );
    expect(results.map((result) => result._unsafeUnwrap().position)).toEqual(
      Array.from({ length: 50 }, (_, i) => (i % 25) + 1),
    );
    expect(results.slice(25).every((result) => result._unsafeUnwrap().kind === 'duplicate')).toBe(
      true,
    );
  });

  it('stores a copy: mutating the appended or the read value changes nothing', async () => {
    const log = createMemoryEventLog();
    const event = { nested: { n: 1 } };
    await log.append(event);
    event.nested.n = 2;
    const [first] = await readAll(log.read());
    if (first?.kind !== 'entry') throw new Error('expected an entry');
    (first.event as { nested: { n: number } }).nested.n = 3;
    expect(entriesOf(await readAll(log.read()))).toEqual([[1, { nested: { n: 1 } }]]);
  });

  it('applies the same limits and errors as the file log', async () => {
    const log = createMemoryEventLog({ maxEventBytes: 10 });
    expect((await log.append({ long: 'xxxxxxxx' }))._unsafeUnwrapErr()).toMatchObject({
      kind: 'too-large',
      limit: 10,
    });
    expect((await log.append(() => 1))._unsafeUnwrapErr().kind).toBe('not-serializable');
    expect(log.lastPosition).toBe(0);
    await log.close();
    expect((await log.append({}))._unsafeUnwrapErr().kind).toBe('closed');
    await expect(readAll(log.read())).rejects.toBeInstanceOf(EventLogReadError);
  });

  it('yields large logs in batches', async () => {
    const log = createMemoryEventLog();
    await log.appendBatch(Array.from({ length: 10_000 }, (_, i) => ({ event: { i } })));
    const sizes: number[] = [];
    for await (const batch of log.read()) sizes.push(batch.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(sizes.length).toBeGreaterThan(1);
  });
});
