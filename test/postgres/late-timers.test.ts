/**
 * Timers and events stored behind the watermark, on PostgreSQL
 * (docs/reactors.md, "Late events"): the measure (live deliveries,
 * then an import of older history, then `pg work --reactors`, against the
 * same history in a clean schema), and the laws over random interleavings of
 * late and live events with `pg work --drain` runs between imports, with 1
 * and with 3 workers.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../src/engine/event-log.js';
import { importRecords } from '../../src/postgres/log/import-events.js';
import { openPostgresEventLog } from '../../src/postgres/log/postgres-event-log.js';
import { migrate } from '../../src/postgres/schema/migrate.js';
import { ROOT, runCli } from '../cli/cli-helpers.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { type HttpSink, startHttpSink } from '../support/http-sink.js';
import { type PostgresServer, postgresDatabase } from '../support/postgres-server.js';
import {
  expectedReminders,
  firedReminders,
  REMIND_AFTER_MS,
  reminderFates,
  reminderOf,
} from '../support/reminder-rules.js';
import {
  envelopeLine,
  type LateSchedule,
  lateScheduleArb,
  type StoredEvent,
  seededStoryLog,
} from '../support/story-log.js';

const SINK_REACTORS = join(ROOT, 'test/fixtures/reactors/sink-reactors.mjs');

let server: PostgresServer;
let sink: HttpSink;
beforeAll(async () => {
  server = await postgresDatabase();
  sink = await startHttpSink();
}, 60_000);
afterAll(async () => {
  await sink?.close();
  await server?.stop();
}, 60_000);

let databases = 0;
/** A migrated database with 4 partitions. */
const freshDatabase = async () => {
  databases += 1;
  const url = await server.createDatabase(`late_timers_${databases}`);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  expect((await migrate(pool, { partitions: 4 })).isOk()).toBe(true);
  return { url, pool, sinkPath: `/db${databases}` };
};

/** Log records of `events`, as a file log's reader gives them (the import stores `raw`'s event). */
const recordsOf = (events: readonly StoredEvent[]): LogRecord[] =>
  events.map((stored, i) => {
    const receivedAt = new Date(stored.receivedAt).toISOString();
    const { deliveryId, event } = stored;
    const raw = envelopeLine({ ...stored, position: i + 1 });
    return { kind: 'entry', position: i + 1, line: i + 1, receivedAt, deliveryId, event, raw };
  });

const importEvents = async (pool: pg.Pool, events: readonly StoredEvent[]): Promise<void> => {
  const imported = await importRecords(
    pool,
    (async function* () {
      yield recordsOf(events);
    })(),
  );
  expect(imported.isOk()).toBe(true);
};

/** `workers` processes of `pg work --drain --reactors`, at once; each must exit 0. */
const work = async (url: string, sinkPath: string, workers: number): Promise<void> => {
  const env = { ...process.env, SIGNFOLD_SINK_URL: `${sink.url.replace(/\/$/, '')}${sinkPath}` };
  const runs = await Promise.all(
    Array.from({ length: workers }, () =>
      runCli(
        [
          'pg',
          'work',
          '--database',
          url,
          '--drain',
          '--reactors',
          SINK_REACTORS,
          '--poll-interval',
          '50',
        ],
        ROOT,
        env,
      ),
    ),
  );
  for (const run of runs) expect(run.stderr).not.toMatch(/error/i);
  for (const run of runs) expect(run.code).toBe(0);
};

/** The reminders the sink was sent for one database, as `signRequestId/participantId`. */
const remindersSent = (sinkPath: string): string[] =>
  sink.calls
    .filter((call) => call.path === sinkPath && call.body.type === 'remind')
    .map((call) => `${call.body.signRequestId}/${call.body.participantId}`);

/** At most three runs (the first two and the last): each is a process start per worker. */
const fewerRuns = (schedule: LateSchedule): LateSchedule => ({
  ...schedule,
  runsAt: [...new Set([...schedule.runsAt.slice(0, 2), schedule.stored.length])],
});

describe('timers made by events stored behind the watermark (PostgreSQL)', () => {
  it("the issue's measure: live deliveries, then older history imported, then pg work: the reminders of a clean schema, none to a participant who signed within 72 h", async () => {
    const history = seededStoryLog(61, 40);
    const storedHistory = history.map(
      (e): StoredEvent => ({ ...e, deliveryId: `history-${e.position}` }),
    );
    const expected = firedReminders(history, REMIND_AFTER_MS)
      .map((e) => reminderOf(e.event))
      .sort();
    const signedWithin72h = new Set(
      history.flatMap((signed) => {
        if (signed.event.type !== 'participant-signed') return [];
        const sent = history.find(
          (e) =>
            e.event.type === 'participant-sent' &&
            e.event.signRequestId === signed.event.signRequestId &&
            e.event.participantId === signed.event.participantId,
        );
        return sent !== undefined && signed.receivedAt - sent.receivedAt < REMIND_AFTER_MS
          ? [`${signed.event.signRequestId}/${signed.event.participantId}`]
          : [];
      }),
    );
    expect(signedWithin72h.size).toBeGreaterThan(5);

    const clean = await freshDatabase();
    const late = await freshDatabase();
    try {
      await importEvents(clean.pool, storedHistory);
      await work(clean.url, clean.sinkPath, 1);

      // Five live deliveries, appended as the webhook server appends them (received now), in
      // every partition's path, projected and reacted to; then the history behind them.
      const log = (await openPostgresEventLog(late.pool))._unsafeUnwrap();
      for (let i = 0; i < 5; i += 1) {
        const stored = await log.append(
          {
            type: 'sign-request-sent',
            companyId: 1,
            ownerId: 10,
            ownerName: 'Olive Owner',
            signRequestId: 9000 + i,
            signRequestName: `Live ${i}`,
            senderId: 20,
            senderName: 'Sam Sender',
            templateId: 100,
            templateName: 'NDA',
          },
          { deliveryId: `live-${i}` },
        );
        expect(stored.isOk()).toBe(true);
      }
      await log.close();
      await work(late.url, late.sinkPath, 1);
      await importEvents(late.pool, storedHistory);
      await work(late.url, late.sinkPath, 1);

      const fromClean = remindersSent(clean.sinkPath).sort();
      const fromLate = remindersSent(late.sinkPath).sort();
      expect(fromClean).toEqual(expected);
      expect(fromLate).toEqual(expected);
      expect(fromLate.filter((reminder) => signedWithin72h.has(reminder))).toEqual([]);
    } finally {
      await clean.pool.end();
      await late.pool.end();
    }
  }, 120_000);

  it.each([1, 3])(
    'law with %i worker(s): over random interleavings of late and live events, no reminder fires whose cancel was stored before the workers caught up, and every other due one fires once',
    async (workers) => {
      await fc.assert(
        fc.asyncProperty(lateScheduleArb(Date.now()).map(fewerRuns), async (schedule) => {
          const { url, pool, sinkPath } = await freshDatabase();
          try {
            let stored = 0;
            for (const runAt of schedule.runsAt) {
              await importEvents(pool, schedule.stored.slice(stored, runAt));
              stored = runAt;
              await work(url, sinkPath, workers);
            }
            const now = Date.now();
            const executed = remindersSent(sinkPath);
            const fates = new Map(reminderFates(schedule).map((fate) => [fate.reminder, fate]));
            for (const reminder of executed) {
              const fate = fates.get(reminder);
              expect(fate?.cancels.filter((index) => index < (fate?.releasedAt ?? 0))).toEqual([]);
            }
            for (const fate of fates.values()) {
              if (fate.due <= now && fate.cancels.length === 0) {
                expect(executed).toContain(fate.reminder);
              }
            }
            expect([...executed].sort()).toEqual(expectedReminders(schedule, now));
          } finally {
            await pool.end();
          }
        }),
        // Each run costs seconds of processes: a failure is reported as found, not shrunk.
        { numRuns: count(4, 25), endOnFailure: true },
      );
    },
    600_000,
  );
});
