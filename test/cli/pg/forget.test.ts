/**
 * `signfold forget --database` (issue 33) against a throwaway server, through
 * the compiled CLI:
 * - a store holding one person's unique name everywhere: a dry run changes
 *   nothing (the text of the database is the same); the forget leaves no
 *   occurrence of the name in any table, view or definition, nor (after `--vacuum`) in any file of the
 *   schema's tables; the events are the originals with the core rule
 *   applied; `pg export` equals `replay` of those events; the ledger has the
 *   entry; a late redelivery through `serve --database` is stored with the
 *   pseudonym;
 * - names made of escapes, NUL, lone surrogates and 20,000 characters, in a
 *   store that also holds the hostile corpus, are forgotten like any other;
 * - forget while `serve --database` takes signed deliveries and `pg work`
 *   follows: nothing lost or doubled, the name nowhere, and `pg export`
 *   equals `replay` of the stored (forgotten) events.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../src/engine/event-log.js';
import type { ForgetReport } from '../../../src/engine/forget-report.js';
import { sqlText } from '../../../src/postgres/event-routing.js';
import { importRecords } from '../../../src/postgres/log/import-events.js';
import { readFileEventLog } from '../../../src/store/file-record-stream.js';
import {
  databaseText,
  filesHolding,
  fillStore,
  forgottenRows,
  logLines,
  NAME,
  NAME_PART,
  PARTICIPANT,
  participantEvent,
  relationFiles,
  rowsHolding,
  storedEventRows,
  storyEvents,
  USER,
} from '../../support/forget-store.js';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';
import { expectEqualsSequentialFold } from '../../support/partition-checks.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import { auditDeliveries, postgresDeliveries } from '../../support/stored-deliveries.js';
import { removeTempDirs, runCli, startCli, tempDir } from '../cli-helpers.js';
import { deliver, eventually, startServe } from '../serve/serve-process.js';
import { expectExportEqualsReplay } from './rebuild-support.js';

let server: PostgresServer;
beforeAll(async () => {
  server = await postgresDatabase();
});
afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A migrated database (4 partitions) and a pool on it. */
const freshDatabase = async (name: string) => {
  const url = await server.createDatabase(name);
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const migrated = await runCli(['pg', 'migrate', '--database', url, '--partitions', '4']);
  expect(migrated.code, migrated.stderr).toBe(0);
  return { url, pool };
};

/** Runs `forget --json` with `args`; its report, after checking the exit code. */
const forget = async (url: string, args: readonly string[], code = 0): Promise<ForgetReport> => {
  const run = await runCli(['forget', '--database', url, '--json', ...args]);
  expect(run.code, run.stderr).toBe(code);
  return JSON.parse(run.stdout) as ForgetReport;
};

/** `pg export` of `url` equals `replay --json` of `lines` (records, and quarantine positions and kinds). */
const expectExportEqualsReplayOf = async (url: string, lines: string): Promise<void> => {
  const log = join(await tempDir(), 'forgotten.ndjson');
  await writeFile(log, lines);
  await expectExportEqualsReplay(url, log);
};

describe('forget --database', () => {
  it('leaves no occurrence of the name in any table, view or definition of the database, nor in the table files; export = replay', async () => {
    const { url, pool } = await freshDatabase('forget_all');
    try {
      await fillStore(pool, 'signfold');
      const dumped = await databaseText(pool);
      expect(dumped).toContain(NAME);
      const who = ['--participant', String(PARTICIPANT), '--user', String(USER), '--name', NAME];

      // A dry run counts and changes nothing.
      const dry = await forget(url, [...who, '--dry-run']);
      expect(dry.dryRun).toBe(true);
      expect(dry.counts.events).toBe(9);
      expect(await databaseText(pool)).toBe(dumped);

      const before = await storedEventRows(pool, 'signfold');
      const report = await forget(url, [...who, '--vacuum']);
      expect(report).toMatchObject({ dryRun: false, reused: false, foundNames: 1, remaining: [] });
      expect(report.counts).toMatchObject({ events: 9, 'bad lines': 1 });
      expect(report.notes.join('\n')).toContain('VACUUM FULL: signfold.events');

      const dump = await databaseText(pool);
      expect(dump).not.toContain(NAME_PART);
      expect(dump).toContain(report.pseudonym);
      expect(await rowsHolding(pool, 'signfold', [NAME_PART])).toEqual([]);
      // After VACUUM FULL no file of the schema's relations holds a byte of the name.
      const files = await relationFiles(pool, 'signfold');
      expect(files.length).toBeGreaterThan(10);
      expect(await filesHolding(pool, 'signfold', NAME_PART)).toEqual([]);

      const subject = {
        participantIds: [PARTICIPANT],
        userIds: [USER],
        names: [NAME],
        pseudonym: report.pseudonym,
      };
      const expected = forgottenRows(before, subject);
      expect(await storedEventRows(pool, 'signfold')).toEqual(expected);
      await expectExportEqualsReplayOf(url, logLines(expected));

      const { rows: ledger } = await pool.query<{ state: string; entry: object }>(
        'SELECT state, entry FROM signfold.erasures ORDER BY id',
      );
      expect(ledger.map((row) => row.state)).toEqual(['started', 'done']);
      expect(ledger[1]?.entry).toMatchObject({
        erasure: report.erasure,
        pseudonym: report.pseudonym,
        participantIds: [PARTICIPANT],
        userIds: [USER],
        typedNames: 1,
        counts: report.counts,
      });
      expect(JSON.stringify(ledger)).not.toContain(NAME_PART);

      // A late redelivery for the forgotten participant, through serve: stored with the pseudonym.
      const serve = await startServe(['--database', url]);
      try {
        const body = JSON.stringify(
          participantEvent('participant-signed', 100, 'NDA', [PARTICIPANT, NAME]),
        );
        const answer = await deliver(serve.url, body, { 'x-delivery-id': 'late-1' });
        expect(answer.status).toBe(200);
      } finally {
        expect((await serve.stop()).code).toBe(0);
      }
      const { rows } = await pool.query<{ body: string }>(
        "SELECT body FROM signfold.events WHERE delivery_id = 'late-1'",
      );
      expect(JSON.parse(rows[0]?.body ?? '{}')).toMatchObject({ partcipantName: report.pseudonym });
      expect(await databaseText(pool)).not.toContain(NAME_PART);

      // A plain UPDATE is still refused.
      await expect(pool.query("UPDATE signfold.events SET body = '{}'")).rejects.toThrow(
        'signfold.events is append-only (UPDATE refused)',
      );
    } finally {
      await pool.end();
    }
  });

  it('forgets names made of escapes, NUL, lone surrogates and 20,000 characters like any other', async () => {
    const { url, pool } = await freshDatabase('forget_hostile');
    try {
      const imported = await importRecords(pool, readFileEventLog(HOSTILE_CORPUS), {
        schema: 'signfold',
      });
      expect(imported.isOk()).toBe(true);
      const people = [
        { name: 'Tab\tQuote"Back\\slash\u0007Bell \u001b[31m', participant: 8101, user: 8201 },
        { name: 'Nul\u0000Byte Person', participant: 8102, user: 8202 },
        { name: 'Lone\ud800Surrogate \udc00Person', participant: 8103, user: 8203 },
        { name: `${'Ωmega Long '.repeat(1818)}Ωm`, participant: 8104, user: 8204 },
      ];
      expect(people[3]?.name.length).toBe(20_000);
      let delivery = 0;
      const log = (
        await (
          await import('../../../src/postgres/log/postgres-event-log.js')
        ).openPostgresEventLog(pool)
      )._unsafeUnwrap();
      for (const person of people) {
        for (const event of storyEvents(person.name, person.participant, person.user)) {
          delivery += 1;
          (await log.append(event, { deliveryId: `forget-${delivery}` }))._unsafeUnwrap();
        }
      }
      await log.close();
      // A bad line holding each name too (PostgreSQL text stores a NUL or a lone half as U+FFFD).
      const badLines: LogRecord[] = people.map((person, i) => ({
        kind: 'bad-line',
        position: i + 1,
        line: i + 1,
        raw: `{"partcipantName":"${person.name}" oops`,
        reason: 'invalid JSON',
      }));
      (
        await importRecords(
          pool,
          (async function* () {
            yield badLines;
          })(),
        )
      )._unsafeUnwrap();
      const work = await runCli(['pg', 'work', '--database', url, '--drain']);
      expect(work.code, work.stderr).toBe(0);
      /** The forms a name is stored in: as PostgreSQL text holds it, and escaped in JSON. */
      const stored = (name: string) => [
        sqlText(name),
        JSON.stringify(name).slice(1, -1),
        JSON.stringify(sqlText(name)).slice(1, -1),
      ];
      for (const person of people) {
        expect((await rowsHolding(pool, 'signfold', stored(person.name))).length).toBeGreaterThan(
          3,
        );
      }
      for (const [i, person] of people.entries()) {
        // The first by its typed name (no NUL can be an argument), the others by their ids.
        const args =
          i === 0
            ? ['--name', person.name]
            : ['--participant', String(person.participant), '--user', String(person.user)];
        const report = await forget(url, args);
        expect(report.counts.events).toBeGreaterThan(0);
        expect(await rowsHolding(pool, 'signfold', stored(person.name))).toEqual([]);
        const dump = await databaseText(pool);
        for (const form of stored(person.name)) expect(dump.includes(form), form).toBe(false);
      }
      // Rewritten in place, the tables are the fold of the rewritten events.
      await expectEqualsSequentialFold(pool, 'signfold');
    } finally {
      await pool.end();
    }
  });

  it('runs while serve takes deliveries and pg work follows: none lost or doubled, export = replay', async () => {
    const { url, pool } = await freshDatabase('forget_live');
    const serve = await startServe(['--database', url]);
    const worker = startCli([
      'pg',
      'work',
      '--database',
      url,
      '--lease',
      '2000',
      '--poll-interval',
      '50',
    ]);
    const sent: string[] = [];
    const acknowledged: string[] = [];
    const failures: string[] = [];
    let stopped = false;
    /** Delivers `body` as `id` until answered 2xx (bounded: 40 tries). */
    const send = async (id: string, body: object): Promise<void> => {
      sent.push(id);
      for (let attempt = 0; ; attempt += 1) {
        try {
          const answer = await deliver(serve.url, JSON.stringify(body), { 'x-delivery-id': id });
          await answer.arrayBuffer();
          if (answer.ok) {
            acknowledged.push(id);
            return;
          }
          if (answer.status < 500 || attempt >= 40) {
            failures.push(`${id}: ${answer.status}`);
            return;
          }
        } catch (cause) {
          if (attempt >= 40) {
            failures.push(`${id}: ${String(cause)}`);
            return;
          }
        }
        await sleep(100);
      }
    };
    /** Each request has the person as a participant, sent and viewed, and one other participant. */
    const lane = async (lane: number): Promise<void> => {
      for (let i = lane; !stopped; i += 2) {
        const request = 1000 + i;
        const title = `Request ${request}`;
        await send(
          `r${request}-0`,
          participantEvent('participant-sent', request, title, [PARTICIPANT, NAME]),
        );
        await send(
          `r${request}-1`,
          participantEvent('participant-sent', request, title, [7002, 'Alan Turing']),
        );
        await send(
          `r${request}-2`,
          participantEvent('participant-viewed', request, title, [PARTICIPANT, NAME]),
        );
      }
    };
    const lanes = [lane(0), lane(1)];
    let report: ForgetReport | undefined;
    try {
      await eventually(
        async () =>
          Number(
            (
              await pool.query('SELECT count(*) AS n FROM signfold.participants WHERE id = $1', [
                PARTICIPANT,
              ])
            ).rows[0].n,
          ) >= 20,
        'the worker to project the person in 20 requests',
        { deadlineMs: 60_000 },
      );
      report = await forget(url, ['--participant', String(PARTICIPANT)]);
      const after = acknowledged.length;
      await eventually(() => acknowledged.length >= after + 60, 'deliveries after the forget', {
        deadlineMs: 60_000,
      });
    } finally {
      stopped = true;
      await Promise.all(lanes);
      worker.child.kill('SIGTERM');
      await worker.closed;
      expect((await serve.stop()).code).toBe(0);
    }
    try {
      expect(failures).toEqual([]);
      const audit = auditDeliveries(await postgresDeliveries(pool), acknowledged, sent);
      expect(audit).toEqual({ lost: [], doubled: [], unknown: [] });
      const drained = await runCli(['pg', 'work', '--database', url, '--drain']);
      expect(drained.code, drained.stderr).toBe(0);
      // Nothing holds the name: not the events (rewritten, or erased on append), not a row a
      // batch that read the events before the forget could have written after it.
      expect(await rowsHolding(pool, 'signfold', [NAME_PART])).toEqual([]);
      // 20 requests were projected with the person before the forget: at least their 20 sent events.
      expect(report?.counts.events).toBeGreaterThanOrEqual(20);
      const { rows } = await pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM signfold.participants WHERE id = $1 AND name = $2',
        [PARTICIPANT, report?.pseudonym],
      );
      // Every request has the person (its first event), with the pseudonym: those projected before the
      // forget (20 or more) and those after it.
      const { rows: requests } = await pool.query<{ n: string }>(
        'SELECT count(DISTINCT sign_request_id) AS n FROM signfold.participants',
      );
      expect(Number(rows[0]?.n)).toBe(Number(requests[0]?.n));
      expect(Number(rows[0]?.n)).toBeGreaterThanOrEqual(30);
      await expectExportEqualsReplayOf(url, logLines(await storedEventRows(pool, 'signfold')));
    } finally {
      await pool.end();
    }
  });
});
