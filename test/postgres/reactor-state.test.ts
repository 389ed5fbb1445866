/**
 * A reactor that sees the whole request, on PostgreSQL (docs/reactors.md,
 * "One cancel for a whole request"): with small batches (a request's
 * `sign-request-declined` often alone in its batch) and with 1 and 3
 * workers, `pg work --reactors` sends exactly the effects `signfold react`
 * sends for the same log, `change.state` included (the notes list every
 * participant of the request), and the prefix cancels leave exactly the
 * reminders of participants no one declined for in time.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { type HttpSink, startHttpSink } from '../support/http-sink.js';
import { type PostgresServer, postgresDatabase } from '../support/postgres-server.js';
import { requestReminders } from '../support/reminder-rules.js';
import { seededStoryLog, writeStoryLog } from '../support/story-log.js';

const FIXTURE = join(ROOT, 'test/fixtures/reactors/request-reminders.mjs');
const HOUR = 3600 * 1000;

let server: PostgresServer;
let sink: HttpSink;
beforeAll(async () => {
  server = await postgresDatabase();
  sink = await startHttpSink();
}, 60_000);
afterAll(async () => {
  await sink?.close();
  await server?.stop();
  await removeTempDirs();
}, 60_000);

const envFor = (path: string) => ({
  ...process.env,
  SIGNFOLD_SINK_URL: `${sink.url.replace(/\/$/, '')}${path}`,
});

/** Idempotency key → body of the effects the sink got on `path` (each once: no failures here). */
const effectsAt = (path: string): Map<string, Record<string, unknown>> => {
  const calls = sink.calls.filter((call) => call.path === path);
  const byKey = new Map(calls.map((call) => [call.key, call.body]));
  expect(byKey.size).toBe(calls.length);
  return byKey;
};

describe('change.state and prefix cancels on PostgreSQL', () => {
  it.each([1, 3])(
    'with %i worker(s) and batches of 2 events: the same effects as the file engine',
    async (workers) => {
      const events = seededStoryLog(73, 40, { ending: 'declined' });
      const log = join(await tempDir(), 'events.ndjson');
      await writeStoryLog(log, events);
      const onFile = `/file-${workers}`;
      const onPg = `/pg-${workers}`;
      const react = await runCli(
        ['react', log, '--reactors', FIXTURE, '--drain'],
        ROOT,
        envFor(onFile),
      );
      expect(react.code).toBe(0);

      const url = await server.createDatabase(`reactor_state_${workers}`);
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      try {
        expect((await runCli(['pg', 'migrate', '--database', url, '--partitions', '4'])).code).toBe(
          0,
        );
        expect((await runCli(['pg', 'import', log, '--database', url])).code).toBe(0);
        const args = ['pg', 'work', '--database', url, '--drain', '--reactors', FIXTURE];
        const runs = await Promise.all(
          Array.from({ length: workers }, () =>
            runCli([...args, '--batch-size', '2', '--poll-interval', '50'], ROOT, envFor(onPg)),
          ),
        );
        for (const run of runs) expect(run.code).toBe(0);
      } finally {
        await pool.end();
      }

      const fromFile = effectsAt(onFile);
      const fromPg = effectsAt(onPg);
      expect(Object.fromEntries(fromPg)).toEqual(Object.fromEntries(fromFile));
      const reminders = [...fromPg.values()]
        .filter((body) => body.type === 'remind')
        .map((body) => `${body.signRequestId}/${body.participantId}`);
      expect(reminders.sort()).toEqual(requestReminders(events, 72 * HOUR).sort());
      // The notes of a request's decline name all of its participants, not only the decliner.
      const notes = [...fromPg.values()].filter((body) => body.by === 'sign-request-declined');
      expect(notes.length).toBeGreaterThan(3);
      for (const note of notes) expect((note.participants as string[]).length).toBeGreaterThan(0);
      expect(notes.some((note) => (note.participants as string[]).length > 1)).toBe(true);
    },
    180_000,
  );
});
