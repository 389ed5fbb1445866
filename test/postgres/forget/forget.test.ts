/**
 * `forgetPostgres` against a throwaway server: the controlled path past the
 * append-only trigger (a hand-written UPDATE is still refused), a store where
 * one person's unique name sits in every kind of place (events as participant,
 * sender, owner and in titles, a bad line, an invalid event, the quarantine,
 * the projection tables, an effect that copies the name and its last error):
 * afterwards no row of the schema holds it, the events are the originals with
 * the names replaced by the core rule, the projection equals the fold of the
 * rewritten events, the ledger has the entry, and a late redelivery for the
 * forgotten id is stored with the pseudonym. A dry run changes nothing.
 */
import { describe, expect, it } from 'vitest';
import type { ErasureSubject } from '../../../src/core/privacy/erasure-subject.js';
import { isPseudonym } from '../../../src/core/privacy/pseudonym.js';
import type { LogRecord } from '../../../src/engine/event-log.js';
import { forgetPostgres } from '../../../src/postgres/forget/forget-postgres.js';
import { importRecords } from '../../../src/postgres/log/import-events.js';
import { openPostgresEventLog } from '../../../src/postgres/log/postgres-event-log.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import { createProjectionWorker } from '../../../src/postgres/worker/projection-worker.js';
import {
  fillStore,
  forgottenRows,
  NAME,
  NAME_PART,
  PARTICIPANT,
  participantEvent,
  rowsHolding,
  storedEventRows,
  storyEvents,
  USER,
} from '../../support/forget-store.js';
import { expectEqualsSequentialFold } from '../../support/partition-checks.js';
import { throwawayPostgres } from '../../support/postgres-server.js';

const db = throwawayPostgres(6);

let schemas = 0;
const freshSchema = async (): Promise<string> => {
  schemas += 1;
  const schema = `f${schemas}`;
  (await migrate(db.pool, { schema, partitions: 4 }))._unsafeUnwrap();
  return schema;
};

const storeWithName = async (): Promise<string> => {
  const schema = await freshSchema();
  await fillStore(db.pool, schema);
  return schema;
};

const holding = (schema: string, text: string) => rowsHolding(db.pool, schema, [text]);
const storedEvents = (schema: string) => storedEventRows(db.pool, schema);
const late = () =>
  participantEvent('participant-signed', 100, 'NDA', [PARTICIPANT, NAME], [9002, 'Grace Hopper']);

describe('the controlled path past the append-only trigger', () => {
  it('still refuses a hand-written UPDATE, DELETE and TRUNCATE of events', async () => {
    const schema = await freshSchema();
    const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
    (await log.append({ type: 'template-deleted' }, { deliveryId: 'a' }))._unsafeUnwrap();
    await log.close();
    for (const sql of [
      `UPDATE ${schema}.events SET body = '{}'`,
      `DELETE FROM ${schema}.events`,
      `TRUNCATE ${schema}.events`,
    ]) {
      await expect(db.pool.query(sql)).rejects.toThrow(`${schema}.events is append-only`);
    }
  });

  it('lets an erasure change body and bad_line only, in its own transaction', async () => {
    const schema = await freshSchema();
    const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
    (await log.append({ type: 'template-deleted' }, { deliveryId: 'a' }))._unsafeUnwrap();
    await log.close();
    const client = await db.pool.connect();
    try {
      const entry = {
        erasure: 'e',
        state: 'started',
        at: new Date().toISOString(),
        pseudonym: 'forgotten-0123456789abcdef',
        participantIds: [],
        userIds: [],
        typedNames: 0,
      };
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO ${schema}.erasures (erasure, state, entry) VALUES ('e', 'started', $1)`,
        [entry],
      );
      await client.query(`UPDATE ${schema}.events SET body = '{"type":"x"}'`);
      await expect(client.query(`UPDATE ${schema}.events SET delivery_id = 'b'`)).rejects.toThrow(
        'may change only body and bad_line',
      );
      await client.query('ROLLBACK');
      // Another transaction: refused again.
      await expect(client.query(`UPDATE ${schema}.events SET body = '{}'`)).rejects.toThrow(
        'append-only',
      );
    } finally {
      client.release();
    }
  });
});

describe('forgetPostgres', () => {
  it('forgets an id that holds no name anywhere: nothing found, nothing changed, a ledger entry', async () => {
    // Every name pre-filter then has no needle: its unused parameter must still have a type.
    const schema = await freshSchema();
    const forgotten = await forgetPostgres(
      db.pool,
      { participantIds: [424242], userIds: [], names: [], dryRun: false },
      { schema },
    );
    const report = forgotten._unsafeUnwrap();
    expect(report.foundNames).toBe(0);
    expect(Object.values(report.counts).every((count) => count === 0)).toBe(true);
    const { rows } = await db.pool.query(`SELECT state FROM ${schema}.erasures ORDER BY id`);
    expect(rows.map((row) => row.state)).toEqual(['started', 'done']);
  });

  it('leaves no row holding the name, events rewritten by the core rule, projection = fold', async () => {
    const schema = await storeWithName();
    expect((await holding(schema, NAME)).length).toBeGreaterThan(5);
    const before = await storedEvents(schema);
    const request = {
      participantIds: [PARTICIPANT],
      userIds: [USER],
      names: [],
      dryRun: false,
    };
    const report = (await forgetPostgres(db.pool, request, { schema }))._unsafeUnwrap();
    expect(isPseudonym(report.pseudonym)).toBe(true);
    expect(report.reused).toBe(false);
    expect(report.foundNames).toBe(1);
    expect(report.remaining).toEqual([]);
    expect(await holding(schema, NAME_PART)).toEqual([]);
    expect(report.counts).toMatchObject({ events: 9, 'bad lines': 1 });
    expect(report.counts.participants).toBeGreaterThan(0);
    expect(report.counts.effects).toBeGreaterThan(0);
    expect(report.counts.quarantine).toBeGreaterThan(0);

    // The events are the originals with the names replaced by the core rule, every other byte kept.
    const subject: ErasureSubject = { ...request, pseudonym: report.pseudonym };
    expect(await storedEvents(schema)).toEqual(forgottenRows(before, subject));
    await expectEqualsSequentialFold(db.pool, schema);

    // The ledger: started and done, no name.
    const ledger = await db.pool.query<{ state: string; entry: Record<string, unknown> }>(
      `SELECT state, entry FROM ${schema}.erasures ORDER BY id`,
    );
    expect(ledger.rows.map((r) => r.state)).toEqual(['started', 'done']);
    expect(ledger.rows[1]?.entry).toMatchObject({
      pseudonym: report.pseudonym,
      participantIds: [PARTICIPANT],
      userIds: [USER],
      typedNames: 0,
      counts: report.counts,
    });

    // A late redelivery for the forgotten participant is stored with the pseudonym.
    const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
    const stored = (await log.append(late(), { deliveryId: 'late' }))._unsafeUnwrap();
    await log.close();
    const { rows } = await db.pool.query<{ body: string }>(
      `SELECT body FROM ${schema}.events WHERE delivery_id = 'late'`,
    );
    expect(stored.kind).toBe('appended');
    expect(JSON.parse(rows[0]?.body ?? '{}')).toMatchObject({ partcipantName: report.pseudonym });
    expect(rows[0]?.body).not.toContain(NAME);

    // So is one imported from a file log (pg import).
    const receivedAt = '2026-11-27T12:00:00.000Z';
    const line = JSON.stringify({ position: 1, receivedAt, deliveryId: 'imported', event: late() });
    async function* imported(): AsyncGenerator<readonly LogRecord[]> {
      yield [
        {
          kind: 'entry',
          position: 1,
          line: 1,
          receivedAt,
          deliveryId: 'imported',
          event: late(),
          raw: line,
        },
      ];
    }
    (await importRecords(db.pool, imported(), { schema }))._unsafeUnwrap();
    const { rows: importedRows } = await db.pool.query<{ body: string }>(
      `SELECT body FROM ${schema}.events WHERE delivery_id = 'imported'`,
    );
    expect(JSON.parse(importedRows[0]?.body ?? '{}')).toMatchObject({
      partcipantName: report.pseudonym,
    });

    // A second forget of the same id reuses the pseudonym.
    const again = (await forgetPostgres(db.pool, request, { schema }))._unsafeUnwrap();
    expect(again).toMatchObject({ pseudonym: report.pseudonym, reused: true });
  });

  it('an append waiting on the lock while a forget commits is erased with its ledger', async () => {
    const schema = await storeWithName();
    const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
    // The log has read the (empty) ledger before the forget.
    (await log.append({ type: 'template-deleted' }, { deliveryId: 'warm' }))._unsafeUnwrap();
    const blocker = await db.pool.connect();
    try {
      // Hold the append lock as a forget does, so the append below waits for it.
      await blocker.query('BEGIN');
      await blocker.query(
        `SELECT pg_advisory_xact_lock(hashtext('signfold.append'), hashtext('${schema}'))`,
      );
      const appending = log.append(late(), { deliveryId: 'waiting' });
      const pseudonym = 'forgotten-00112233445566aa';
      const entry = (state: string) => ({
        erasure: 'x',
        state,
        at: new Date().toISOString(),
        pseudonym,
        participantIds: [PARTICIPANT],
        userIds: [],
        typedNames: 0,
      });
      for (const state of ['started', 'done']) {
        await blocker.query(
          `INSERT INTO ${schema}.erasures (erasure, state, entry) VALUES ('x', $1, $2)`,
          [state, entry(state)],
        );
      }
      await blocker.query('COMMIT');
      expect((await appending)._unsafeUnwrap().kind).toBe('appended');
      const { rows } = await db.pool.query<{ body: string }>(
        `SELECT body FROM ${schema}.events WHERE delivery_id = 'waiting'`,
      );
      expect(JSON.parse(rows[0]?.body ?? '{}')).toMatchObject({ partcipantName: pseudonym });
    } finally {
      blocker.release();
      await log.close();
    }
  });

  it('a batch that read the events before the forget writes nothing after it', async () => {
    const schema = await freshSchema();
    const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
    for (const [i, event] of storyEvents().entries()) {
      (await log.append(event, { deliveryId: `d-${i}` }))._unsafeUnwrap();
    }
    await log.close();
    // The worker folds its first batch (the names as they were) and waits before writing it.
    let folded: () => void = () => undefined;
    const wasFolded = new Promise<void>((resolve) => {
      folded = resolve;
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let paused = false;
    const worker = (
      await createProjectionWorker(db.pool, {
        schema,
        batchSize: 100,
        onFolded: async () => {
          if (paused) return;
          paused = true;
          folded();
          await released;
        },
      })
    )._unsafeUnwrap();
    const draining = worker.drain();
    await wasFolded;
    const report = (
      await forgetPostgres(
        db.pool,
        { participantIds: [PARTICIPANT], userIds: [USER], names: [], dryRun: false },
        { schema },
      )
    )._unsafeUnwrap();
    release();
    (await draining)._unsafeUnwrap();
    (
      await (await createProjectionWorker(db.pool, { schema }))._unsafeUnwrap().drain()
    )._unsafeUnwrap();
    expect(await holding(schema, NAME_PART)).toEqual([]);
    const { rows } = await db.pool.query(`SELECT name FROM ${schema}.participants WHERE id = $1`, [
      PARTICIPANT,
    ]);
    expect(rows).toEqual([{ name: report.pseudonym }]);
    await expectEqualsSequentialFold(db.pool, schema);
  });

  it('a dry run counts and changes nothing', async () => {
    const schema = await storeWithName();
    const before = await holding(schema, NAME);
    const report = (
      await forgetPostgres(
        db.pool,
        { participantIds: [], userIds: [], names: [NAME], dryRun: true },
        { schema },
      )
    )._unsafeUnwrap();
    expect(report.dryRun).toBe(true);
    expect(report.counts.events).toBeGreaterThan(0);
    expect(await holding(schema, NAME)).toEqual(before);
    const { rows } = await db.pool.query(`SELECT 1 FROM ${schema}.erasures`);
    expect(rows).toEqual([]);
  });

  it('forgets by typed name alone as thoroughly', async () => {
    const schema = await storeWithName();
    const report = (
      await forgetPostgres(
        db.pool,
        { participantIds: [], userIds: [], names: [NAME], dryRun: false },
        { schema },
      )
    )._unsafeUnwrap();
    expect(report.typedNames).toBe(1);
    expect(await holding(schema, NAME_PART)).toEqual([]);
    await expectEqualsSequentialFold(db.pool, schema);
  });
});
