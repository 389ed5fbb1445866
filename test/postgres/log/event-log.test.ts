import { describe, expect, it } from 'vitest';
import { openPostgresEventLog } from '../../../src/postgres/log/postgres-event-log.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import { SCHEMA_VERSION } from '../../../src/postgres/schema/migrations.js';
import { events } from '../../../src/testing/index.js';
import { readAll } from '../../store/fixtures/log-helpers.js';
import { throwawayPostgres } from '../../support/postgres-server.js';

const db = throwawayPostgres(8);

describe('migrate', () => {
  it('creates the schema once and is idempotent', async () => {
    expect((await migrate(db.pool, { schema: 'm1' }))._unsafeUnwrap()).toEqual({
      schema: 'm1',
      from: 0,
      to: SCHEMA_VERSION,
      partitions: 16,
    });
    expect((await migrate(db.pool, { schema: 'm1' }))._unsafeUnwrap()).toEqual({
      schema: 'm1',
      from: SCHEMA_VERSION,
      to: SCHEMA_VERSION,
      partitions: 16,
    });
  });

  it('five migrations at once all succeed, one creates', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => migrate(db.pool, { schema: 'm2' })),
    );
    const froms = outcomes.map((o) => o._unsafeUnwrap().from).sort();
    expect(froms).toEqual([0, ...Array(4).fill(SCHEMA_VERSION)]);
  });

  it('refuses a schema newer than the code', async () => {
    await migrate(db.pool, { schema: 'm3' });
    await db.pool.query('UPDATE m3.schema_version SET version = 99');
    const refused = (await migrate(db.pool, { schema: 'm3' }))._unsafeUnwrapErr();
    expect(refused).toMatchObject({ kind: 'schema-too-new', found: 99, supported: SCHEMA_VERSION });
    expect((await openPostgresEventLog(db.pool, { schema: 'm3' }))._unsafeUnwrapErr().kind).toBe(
      'schema-too-new',
    );
  });

  it('rejects a schema name that is not a plain identifier', async () => {
    const bad = (await migrate(db.pool, { schema: 'x"; DROP TABLE y; --' }))._unsafeUnwrapErr();
    expect(bad.kind).toBe('invalid-option');
    expect(bad.message).toContain('lower-case identifier');
  });

  it('opening an unmigrated schema says to migrate', async () => {
    const missing = (
      await openPostgresEventLog(db.pool, { schema: 'nothing_here' })
    )._unsafeUnwrapErr();
    expect(missing).toMatchObject({ kind: 'schema-missing', schema: 'nothing_here' });
    expect(missing.message).toContain('signfold pg migrate');
  });
});

describe('the PostgreSQL event log', () => {
  it('appends, deduplicates delivery ids and reads back in order', async () => {
    await migrate(db.pool, { schema: 'l1' });
    const log = (await openPostgresEventLog(db.pool, { schema: 'l1' }))._unsafeUnwrap();
    const at = new Date('2026-01-02T03:04:05.678Z');
    const first = await log.append(events.signRequestSent(), { deliveryId: 'd-1', receivedAt: at });
    expect(first._unsafeUnwrap()).toEqual({
      kind: 'appended',
      position: 1,
      receivedAt: at.toISOString(),
    });
    const again = await log.append(events.signRequestSent(), { deliveryId: 'd-1' });
    expect(again._unsafeUnwrap()).toEqual({ kind: 'duplicate', position: 1 });
    const batch = await log.appendBatch([
      { event: events.participantViewed(), deliveryId: 'd-2' },
      { event: { not: 'an event' } },
      { event: events.participantViewed(), deliveryId: 'd-2' },
      { event: events.participantSigned(), deliveryId: 'd-1' },
    ]);
    // A skipped duplicate still draws a number from the sequence: positions increase, with gaps.
    expect(batch._unsafeUnwrap().map((o) => `${o.kind}@${o.position}`)).toEqual([
      'appended@3',
      'appended@4',
      'duplicate@3',
      'duplicate@1',
    ]);
    const records = await readAll(log.read());
    expect(records.map((r) => r.position)).toEqual([1, 3, 4]);
    expect(records[0]).toMatchObject({
      kind: 'entry',
      deliveryId: 'd-1',
      receivedAt: '2026-01-02T03:04:05.678Z',
      event: events.signRequestSent(),
    });
    expect(records[1]).toMatchObject({ kind: 'entry', event: { type: 'participant-viewed' } });
    expect(records[2]).toMatchObject({
      kind: 'entry',
      event: { not: 'an event' },
      deliveryId: undefined,
    });
    expect((await readAll(log.read({ fromPosition: 2 }))).map((r) => r.position)).toEqual([3, 4]);
    await log.close();
    expect((await log.append({}))._unsafeUnwrapErr().kind).toBe('closed');
  });

  it('validates before storing anything, as the file log does', async () => {
    await migrate(db.pool, { schema: 'l2' });
    const log = (
      await openPostgresEventLog(db.pool, { schema: 'l2', maxEventBytes: 100 })
    )._unsafeUnwrap();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect((await log.append(cyclic))._unsafeUnwrapErr().kind).toBe('not-serializable');
    expect((await log.append({ big: 'x'.repeat(200) }))._unsafeUnwrapErr()).toMatchObject({
      kind: 'too-large',
      limit: 100,
    });
    expect((await log.append({}, { deliveryId: 'a\u0000b' }))._unsafeUnwrapErr().message).toContain(
      'NUL',
    );
    expect(await readAll(log.read())).toEqual([]);
  });

  it('keeps the routing columns and refuses updates and deletes', async () => {
    await migrate(db.pool, { schema: 'l3' });
    const log = (await openPostgresEventLog(db.pool, { schema: 'l3' }))._unsafeUnwrap();
    await log.append(
      events.participantSigned({ companyId: 7, signRequestId: 70, participantId: 1 }),
    );
    const row = await db.pool.query(
      'SELECT event_type, company_id, sign_request_id, template_id FROM l3.events',
    );
    expect(row.rows[0]).toEqual({
      event_type: 'participant-signed',
      company_id: '7',
      sign_request_id: '70',
      template_id: expect.any(String),
    });
    await expect(db.pool.query('DELETE FROM l3.events')).rejects.toThrow(/append-only/);
    await expect(db.pool.query("UPDATE l3.events SET body = '{}'")).rejects.toThrow(/append-only/);
    await expect(db.pool.query('TRUNCATE l3.events')).rejects.toThrow(/append-only/);
  });

  it('reads in batches across the batch size', async () => {
    await migrate(db.pool, { schema: 'l4' });
    const log = (
      await openPostgresEventLog(db.pool, { schema: 'l4', readBatchSize: 7 })
    )._unsafeUnwrap();
    await log.appendBatch(Array.from({ length: 50 }, (_, i) => ({ event: { i } })));
    const batches: number[] = [];
    for await (const batch of log.read({ fromPosition: 4 })) batches.push(batch.length);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(47);
    expect(Math.max(...batches)).toBe(7);
  });

  it('concurrent appends from one process get distinct increasing positions in call order', async () => {
    await migrate(db.pool, { schema: 'l5' });
    const log = (await openPostgresEventLog(db.pool, { schema: 'l5' }))._unsafeUnwrap();
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) => log.append({ i }, { deliveryId: `c-${i % 150}` })),
    );
    const positions = outcomes.map((o) => o._unsafeUnwrap());
    const appended = positions.filter((o) => o.kind === 'appended').map((o) => o.position);
    expect(appended).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
    positions.slice(150).forEach((o, i) => {
      expect(o).toEqual({ kind: 'duplicate', position: i + 1 });
    });
  });
});

describe('why positions become visible in order', () => {
  it('an insert waits for an earlier uncommitted insert to commit', async () => {
    await migrate(db.pool, { schema: 'l6' });
    const first = await db.pool.connect();
    const second = await db.pool.connect();
    try {
      await first.query('BEGIN');
      await first.query("INSERT INTO l6.events (body) VALUES ('{}')");
      await second.query('BEGIN');
      await second.query("SET LOCAL lock_timeout = '200ms'");
      await expect(second.query("INSERT INTO l6.events (body) VALUES ('{}')")).rejects.toThrow(
        /lock timeout/,
      );
      await second.query('ROLLBACK');
      await first.query('COMMIT');
      await second.query("INSERT INTO l6.events (body) VALUES ('{}')");
      const positions = await db.pool.query('SELECT position FROM l6.events ORDER BY position');
      // The waiting insert had not drawn a position yet: the lock comes first.
      expect(positions.rows.map((row) => Number(row.position))).toEqual([1, 2]);
    } finally {
      first.release();
      second.release();
    }
  });
});
