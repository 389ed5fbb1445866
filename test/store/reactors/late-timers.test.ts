/**
 * Timers and events stored behind the watermark, on the file engine
 * (docs/reactors.md, "Late events"): the log (one live event, then a
 * history received 10 days ago), and the laws over random interleavings of
 * late and live events with runs of the runner between them.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { defineReactor } from '../../../src/core/reactors/define-reactor.js';
import { createFileReactorRunner } from '../../../src/store/reactors/file-reactor-runner.js';
import { count, removeTempDirs, tempDir } from '../../reliability/fixtures/reliability-helpers.js';
import {
  expectedReminders,
  firedReminders,
  REMIND_AFTER_MS,
  reminderFates,
  reminderOf,
} from '../../support/reminder-rules.js';
import {
  envelopeLine,
  type LateSchedule,
  lateScheduleArb,
  type StoredEvent,
  wireEvent,
} from '../../support/story-log.js';

afterAll(removeTempDirs);

const HOUR = 3600 * 1000;

/** The reactor: remind 72 h after a participant is sent, cancel on signing or declining. */
const reminders = () => {
  const executed: string[] = [];
  const reactor = defineReactor({
    name: 'reminders',
    react: ({ event }) => {
      if (!('participantId' in event)) return [];
      const key = `${event.signRequestId}/${event.participantId}`;
      if (event.type === 'participant-sent') {
        return [{ type: 'remind', key, after: REMIND_AFTER_MS }];
      }
      if (event.type === 'participant-signed' || event.type === 'participant-declined') {
        return [{ type: 'cancel', key }];
      }
      return [];
    },
    execute: (effect) => {
      executed.push(effect.key as string);
    },
  });
  return { reactor, executed };
};

const lineOf = (stored: StoredEvent, index: number): string =>
  `${envelopeLine({ ...stored, position: index + 1 })}\n`;

/** Stores `schedule`'s events, running the runner (drained) at each of its runs. */
const play = async (schedule: LateSchedule): Promise<string[]> => {
  const log = join(await tempDir(), 'events.ndjson');
  await writeFile(log, '');
  const { reactor, executed } = reminders();
  let stored = 0;
  for (const runAt of schedule.runsAt) {
    const lines = schedule.stored.slice(stored, runAt).map((e, i) => lineOf(e, stored + i));
    await appendFile(log, lines.join(''));
    stored = runAt;
    const run = await createFileReactorRunner({
      logPath: log,
      reactors: [reactor],
      drain: true,
    }).run();
    expect(run.isOk()).toBe(true);
  }
  return executed;
};

const at = (receivedAt: number, deliveryId: string, event: StoredEvent['event']): StoredEvent => ({
  receivedAt,
  deliveryId,
  event,
});

describe('timers made by events stored behind the watermark (file engine)', () => {
  it("the issue's log: no reminder for a participant who signed 10 h after being sent, received 10 days late behind a live event", async () => {
    const now = Date.now();
    const sent = now - 240 * HOUR;
    const schedule: LateSchedule = {
      stored: [
        at(now, 'live', wireEvent('sign-request-sent', 1)),
        at(sent, 'h1', wireEvent('sign-request-sent', 2)),
        at(sent, 'h2', wireEvent('participant-sent', 2, 1)),
        at(sent + 10 * HOUR, 'h3', wireEvent('participant-signed', 2, 1)),
        // Two more of the same history: one who never signed (really due: it fires, once), and one
        // who signed 100 h after being sent, when the reminder had been due for 28 h: it fires too,
        // as it does when the same events are stored in time order.
        at(sent, 'h4', wireEvent('participant-sent', 2, 2)),
        at(sent, 'h5', wireEvent('participant-sent', 2, 3)),
        at(sent + 100 * HOUR, 'h6', wireEvent('participant-signed', 2, 3)),
      ],
      runsAt: [7],
    };
    expect((await play(schedule)).sort()).toEqual(['2/2', '2/3']);
    // Before the fix, the live event's watermark released the reminder as soon as it was made.
    expect(expectedReminders(schedule, now)).toEqual(['2/2', '2/3']);
  });

  it('law: over random interleavings of late and live events and runs, no reminder fires whose cancel was stored before the runner caught up, and every other due one fires once', async () => {
    await fc.assert(
      fc.asyncProperty(lateScheduleArb(Date.now()), async (schedule) => {
        const now = Date.now();
        const executed = await play(schedule);
        const fates = new Map(reminderFates(schedule).map((fate) => [fate.reminder, fate]));
        // Safety: no reminder executed whose cancel (received before it was due) the run that
        // released it had read.
        for (const reminder of executed) {
          const fate = fates.get(reminder);
          expect(fate?.cancels.filter((index) => index < (fate?.releasedAt ?? 0))).toEqual([]);
        }
        // Liveness: a due reminder with no cancel anywhere in the log fires.
        for (const fate of fates.values()) {
          if (fate.due <= now && fate.cancels.length === 0)
            expect(executed).toContain(fate.reminder);
        }
        // Exactly those, each once.
        expect([...executed].sort()).toEqual(expectedReminders(schedule, now));
      }),
      { numRuns: count(25, 200) },
    );
  }, 120_000);

  it('law: with one run at the end, a shuffled log fires the reminders that the same events stored in time order fire', async () => {
    await fc.assert(
      fc.asyncProperty(lateScheduleArb(Date.now()), async (shuffled) => {
        const once = { ...shuffled, runsAt: [shuffled.stored.length] };
        const executed = await play(once);
        const inOrder = [...shuffled.stored].sort((a, b) => a.receivedAt - b.receivedAt);
        // The independent rule of the in-order tests; live reminders are not due yet.
        const fired = firedReminders(inOrder, REMIND_AFTER_MS)
          .filter((e) => e.receivedAt + REMIND_AFTER_MS <= Date.now())
          .map((e) => reminderOf(e.event));
        expect([...executed].sort()).toEqual(fired.sort());
      }),
      { numRuns: count(25, 200) },
    );
  }, 120_000);
});
