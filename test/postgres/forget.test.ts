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
import { eraseInText } from '../../src/core/privacy/erase-in-text.js';
import type { ErasureSubject } from '../../src/core/privacy/erasure-subject.js';
import { isPseudonym } from '../../src/core/privacy/pseudonym.js';
import { namesHeldBy, recordErasures } from '../../src/core/privacy/record-erasures.js';
import { rewriteJsonStrings } from '../../src/core/privacy/rewrite-json-strings.js';
import { defineReactor } from '../../src/core/reactors/define-reactor.js';
import type { LogRecord } from '../../src/engine/event-log.js';
import { forgetPostgres } from '../../src/postgres/forget-postgres.js';
import { importRecords } from '../../src/postgres/import-events.js';
import { migrate } from '../../src/postgres/migrate.js';
import { openPostgresEventLog } from '../../src/postgres/postgres-event-log.js';
import { createProjectionWorker } from '../../src/postgres/projection-worker.js';
import { expectEqualsSequentialFold } from '../support/partition-checks.js';
import { throwawayPostgres } from '../support/postgres-server.js';

const db = throwawayPostgres(6);

const NAME = 'Zyxwvut Qlmnopr';
const OTHER = 'Grace Hopper';
const PARTICIPANT = 7001;
const USER = 9001;

let schemas = 0;
const freshSchema = async (): Promise<string> => {
  schemas += 1;
  const schema = `f${schemas}`;
  (await migrate(db.pool, { schema, partitions: 4 }))._unsafeUnwrap();
  return schema;
};

const sent = (id: number, name: string, title: string, by: [number, string]) => ({
  type: 'sign-request-sent',
  companyId: 1,
  signRequestId: id,
  signRequestName: title,
  templateId: 11,
  templateName: 'Mutual NDA',
  senderId: by[0],
  senderName: by[1],
  ownerId: by[0],
  ownerName: by[1],
  ...(name === '' ? {} : {}),
});

const participant = (
  type: string,
  request: number,
  title: string,
  id: number,
  name: string,
  by: [number, string],
) => ({
  type,
  companyId: 1,
  signRequestId: request,
  signRequestName: title,
  templateId: 11,
  templateName: 'Mutual NDA',
  participantId: id,
  partcipantName: name,
  roleId: 1,
  roleName: 'Signer',
  senderId: by[0],
  senderName: by[1],
  ownerId: by[0],
  ownerName: by[1],
});

/** Events where NAME is a participant (id PARTICIPANT), a sender and owner (id USER) and in titles. */
const storyEvents = (): unknown[] => {
  const grace: [number, string] = [9002, OTHER];
  const them: [number, string] = [USER, NAME];
  const title = `NDA - ${NAME}`;
  return [
    {
      type: 'template-activated',
      companyId: 1,
      templateId: 11,
      templateName: 'Mutual NDA',
      ownerId: USER,
      ownerName: NAME,
    },
    sent(100, '', title, grace),
    participant('participant-sent', 100, title, PARTICIPANT, NAME, grace),
    participant('participant-viewed', 100, title, PARTICIPANT, NAME, grace),
    participant('participant-sent', 100, title, 7002, 'Alan Turing', grace),
    sent(200, '', 'Lease', them),
    participant('participant-sent', 200, 'Lease', 7003, 'Barbara Liskov', them),
    participant('participant-signed', 200, 'Lease', 7003, 'Barbara Liskov', them),
    // An invalid event (its sign request id is a string): quarantined with its raw text.
    {
      ...participant('participant-signed', 300, 'x', PARTICIPANT, NAME, grace),
      signRequestId: 'x',
    },
  ];
};

/** A reactor that copies the participant's name into its effect, and fails with it. */
const copier = defineReactor({
  name: 'copier',
  retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
  react: ({ event }) =>
    event.type === 'participant-sent'
      ? [{ type: 'greet', text: `Hello ${event.participantName}`, to: event.participantName }]
      : [],
  execute: async (effect) => {
    throw new Error(`cannot greet ${(effect as unknown as { to: string }).to}`);
  },
});

/** A store holding NAME everywhere, projected, with effects enqueued. */
const storeWithName = async (): Promise<string> => {
  const schema = await freshSchema();
  const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
  let n = 0;
  for (const event of storyEvents()) {
    n += 1;
    (await log.append(event, { deliveryId: `d-${n}` }))._unsafeUnwrap();
  }
  await log.close();
  const bad: LogRecord = {
    kind: 'bad-line',
    position: 1,
    line: 1,
    raw: `{"type":"participant-sent","partcipantName":"${NAME}",`,
    reason: 'invalid JSON: unexpected end',
  };
  async function* records(): AsyncGenerator<readonly LogRecord[]> {
    yield [bad];
  }
  (await importRecords(db.pool, records(), { schema }))._unsafeUnwrap();
  const worker = (
    await createProjectionWorker(db.pool, { schema, batchSize: 3, reactors: [copier] })
  )._unsafeUnwrap();
  (await worker.drain())._unsafeUnwrap();
  await db.pool.query(
    `UPDATE ${schema}.effects SET last_error = 'cannot greet ' || (effect->>'to'), state = 'parked'`,
  );
  return schema;
};

/** Every text value of every row of every table of `schema`, as one string per row. */
const rowsHolding = async (schema: string, text: string): Promise<string[]> => {
  const { rows: tables } = await db.pool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`,
    [schema],
  );
  const found: string[] = [];
  for (const { table_name } of tables) {
    const { rows } = await db.pool.query<{ row: string }>(
      `SELECT t::text AS row FROM ${schema}.${table_name} AS t`,
    );
    for (const { row } of rows) if (row.includes(text)) found.push(`${table_name}: ${row}`);
  }
  return found;
};

const storedEvents = async (schema: string) =>
  (
    await db.pool.query<{ position: string; body: string; bad_line: string | null }>(
      `SELECT position, body, bad_line FROM ${schema}.events ORDER BY position`,
    )
  ).rows;

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
  it('leaves no row holding the name, events rewritten by the core rule, projection = fold', async () => {
    const schema = await storeWithName();
    expect((await rowsHolding(schema, NAME)).length).toBeGreaterThan(5);
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
    expect(await rowsHolding(schema, 'Zyxwv')).toEqual([]);
    expect(report.counts).toMatchObject({ events: 9, 'bad lines': 1 });
    expect(report.counts.participants).toBeGreaterThan(0);
    expect(report.counts.effects).toBeGreaterThan(0);
    expect(report.counts.quarantine).toBeGreaterThan(0);

    // The events are the originals with the names replaced by the core rule, every other byte kept.
    const subject: ErasureSubject = { ...request, pseudonym: report.pseudonym };
    const found = [
      ...new Set(
        before.flatMap((row) => {
          try {
            return row.bad_line === null ? namesHeldBy(JSON.parse(row.body), subject) : [];
          } catch {
            return [];
          }
        }),
      ),
    ];
    const names = { typed: [], found };
    const expected = before.map((row) => {
      if (row.bad_line !== null) {
        return { ...row, body: eraseInText(row.body, names, report.pseudonym).text };
      }
      const value = JSON.parse(row.body);
      return {
        ...row,
        body: rewriteJsonStrings(row.body, recordErasures(value, subject, names)).text,
      };
    });
    expect(await storedEvents(schema)).toEqual(expected);
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
    const late = participant('participant-signed', 100, 'NDA', PARTICIPANT, NAME, [9002, OTHER]);
    const stored = (await log.append(late, { deliveryId: 'late' }))._unsafeUnwrap();
    await log.close();
    const { rows } = await db.pool.query<{ body: string }>(
      `SELECT body FROM ${schema}.events WHERE delivery_id = 'late'`,
    );
    expect(stored.kind).toBe('appended');
    expect(JSON.parse(rows[0]?.body ?? '{}')).toMatchObject({ partcipantName: report.pseudonym });
    expect(rows[0]?.body).not.toContain(NAME);

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
      const late = participant('participant-signed', 100, 'NDA', PARTICIPANT, NAME, [9002, OTHER]);
      const appending = log.append(late, { deliveryId: 'waiting' });
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

  it('a dry run counts and changes nothing', async () => {
    const schema = await storeWithName();
    const before = await rowsHolding(schema, NAME);
    const report = (
      await forgetPostgres(
        db.pool,
        { participantIds: [], userIds: [], names: [NAME], dryRun: true },
        { schema },
      )
    )._unsafeUnwrap();
    expect(report.dryRun).toBe(true);
    expect(report.counts.events).toBeGreaterThan(0);
    expect(await rowsHolding(schema, NAME)).toEqual(before);
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
    expect(await rowsHolding(schema, 'Zyxwv')).toEqual([]);
    await expectEqualsSequentialFold(db.pool, schema);
  });
});
