/**
 * examples/reactors.js: its pure half with the test kit, and the whole of it
 * on a throwaway PostgreSQL with local HTTP stubs: every completed request's
 * document fetched, the reminders computed independently from the log, and
 * one CRM note per completion written by SQL in the projection transaction.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, given } from '../../dist/testing/index.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { startHttpSink } from '../support/http-sink.js';
import { type PostgresServer, postgresDatabase } from '../support/postgres-server.js';
import { firedReminders } from '../support/reminder-rules.js';
import { seededStoryLog, writeStoryLog } from '../support/story-log.js';

const EXAMPLE = join(ROOT, 'examples/reactors.js');
type ExampleModule = typeof import('../../examples/reactors.js');

let example: ExampleModule;
let server: PostgresServer;
beforeAll(async () => {
  example = (await import(EXAMPLE)) as ExampleModule;
  server = await postgresDatabase();
});
afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

describe('examples/reactors.js, the pure half', () => {
  it('a participant-sent schedules a keyed reminder 72 h later; a signature cancels it', () => {
    given(events.signRequestSent())
      .when(events.participantSent(), { receivedAt: '2026-01-01T09:00:00.000Z' })
      .thenEffects(example.reminders, [
        {
          type: 'remind-participant',
          key: 'participant:1000:5',
          after: 72 * 3600 * 1000,
          signRequestId: 1000,
          participantId: 5,
        },
      ]);
    given(events.signRequestSent(), events.participantSent())
      .when(events.participantSigned())
      .thenEffects(example.reminders, [{ type: 'cancel', key: 'participant:1000:5' }]);
  });

  it('a completion asks for the signed document and a CRM note naming the request', () => {
    given(events.signRequestSent())
      .when(events.signRequestCompleted())
      .thenEffects(example.signedDocuments, [
        { type: 'fetch-signed-document', signRequestId: 1000 },
      ]);
    given(events.signRequestSent({ signRequestName: 'Lease 12' }))
      .when(events.signRequestCompleted({ signRequestName: 'Lease 12' }))
      .thenEffects(example.crmNotes, [{ type: 'crm-note', signRequestId: 1000, name: 'Lease 12' }]);
  });
});

describe('examples/reactors.js on PostgreSQL', () => {
  it('fetches every signed document, sends exactly the reminders not cancelled in time, and writes one CRM note per completion', async () => {
    const url = await server.createDatabase('example_reactors');
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const documents = await startHttpSink();
    const reminders = await startHttpSink();
    try {
      await pool.query(
        'CREATE TABLE crm_notes (sign_request_id bigint PRIMARY KEY, note text NOT NULL)',
      );
      const dir = await tempDir();
      const log = join(dir, 'events.ndjson');
      const logged = seededStoryLog(61, 120);
      await writeStoryLog(log, logged);
      expect((await runCli(['pg', 'migrate', '--database', url, '--partitions', '3'])).code).toBe(
        0,
      );
      expect((await runCli(['pg', 'import', log, '--database', url])).code).toBe(0);
      const env = {
        ...process.env,
        SIGNED_DOCUMENTS_URL: documents.url.replace(/\/$/, ''),
        REMINDERS_URL: reminders.url,
      };
      const work = await runCli(
        ['pg', 'work', '--database', url, '--drain', '--reactors', EXAMPLE],
        ROOT,
        env,
      );
      expect(work.code).toBe(0);
      const completed = logged.filter((e) => e.event.type === 'sign-request-completed');
      expect(documents.calls.map((call) => call.path).sort()).toEqual(
        completed.map((e) => `/sign-requests/${e.event.signRequestId}/document`).sort(),
      );
      expect(documents.calls.every((call) => /^signed-documents:\d+:0$/.test(call.key))).toBe(true);
      const expected = firedReminders(logged, example.REMIND_AFTER_MS);
      expect(expected.length).toBeGreaterThan(0);
      expect(reminders.calls.map((call) => call.key).sort()).toEqual(
        expected.map((e) => `reminders:${e.position}:0`).sort(),
      );
      const notes = await pool.query<{ sign_request_id: string; note: string }>(
        'SELECT sign_request_id, note FROM crm_notes ORDER BY sign_request_id',
      );
      expect(notes.rows.map((row) => [Number(row.sign_request_id), row.note])).toEqual(
        completed
          .map((e) => [e.event.signRequestId, `completed: Request ${e.event.signRequestId}`])
          .sort((a, b) => Number(a[0]) - Number(b[0])),
      );
      // On a file log the SQL reactor is refused in one line, before anything runs.
      const file = await runCli(['react', log, '--reactors', EXAMPLE, '--drain'], ROOT, env);
      expect(file.code).toBe(2);
      expect(file.stderr).toBe(
        'signfold: react: reactor "crm-notes" has SQL effects, which need PostgreSQL (signfold pg work --reactors)\n',
      );
    } finally {
      await documents.close();
      await reminders.close();
      await pool.end();
    }
  });
});
