import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defineReactor } from '../../../src/core/reactors/define-reactor.js';
import type { Effect, EffectContext } from '../../../src/core/reactors/reactor-types.js';
import { retryDelayBounds } from '../../../src/core/reactors/retry-policy.js';
import { createFileReactorRunner } from '../../../src/store/reactors/file-reactor-runner.js';
import { editJournal } from '../../../src/store/reactors/journal-edit.js';
import { removeTempDirs, tempDir } from '../../reliability/fixtures/reliability-helpers.js';
import { eventually } from '../../support/eventually.js';
import { firedReminders } from '../../support/reminder-rules.js';
import { envelopeLine, seededStoryLog, writeStoryLog } from '../../support/story-log.js';

afterAll(removeTempDirs);

const HOUR = 3600 * 1000;

/** A reactor that records what it executes, in this process. */
const recording = (
  name: string,
  react: Parameters<typeof defineReactor>[0]['react'],
  fails: (effect: Effect, ctx: EffectContext) => boolean = () => false,
) => {
  const calls: { effect: Effect; key: string; attempt: number; at: number }[] = [];
  const reactor = defineReactor({
    name,
    react,
    execute: async (effect, ctx) => {
      calls.push({ effect, key: ctx.idempotencyKey, attempt: ctx.attempt, at: Date.now() });
      if (fails(effect, ctx)) throw new Error(`refused ${ctx.idempotencyKey}`);
    },
    retry: { maxAttempts: 4, baseDelayMs: 40, maxDelayMs: 120 },
  });
  return { reactor, calls };
};

const documents = () =>
  recording('documents', ({ event }) =>
    event.type === 'sign-request-completed' ? [{ type: 'fetch', id: event.signRequestId }] : [],
  );

describe('the file reactor runner', () => {
  it('reacts once per applied event: a second run executes nothing again', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const events = seededStoryLog(1, 60);
    await writeStoryLog(log, events);
    const { reactor, calls } = documents();
    const first = await createFileReactorRunner({
      logPath: log,
      reactors: [reactor],
      drain: true,
    }).run();
    const completed = events.filter((e) => e.event.type === 'sign-request-completed');
    expect(completed.length).toBeGreaterThan(5);
    expect(calls.map((call) => call.key).sort()).toEqual(
      completed.map((e) => `documents:${e.position}:0`).sort(),
    );
    expect(first._unsafeUnwrap().report.reactors).toEqual([
      { name: 'documents', pending: 0, parked: 0, done: completed.length },
    ]);
    const second = await createFileReactorRunner({
      logPath: log,
      reactors: [reactor],
      drain: true,
    }).run();
    expect(second._unsafeUnwrap().reactions).toBe(0);
    expect(calls).toHaveLength(completed.length);
  });

  it('fires exactly the reminders not cancelled within 72 h in event time, computed independently', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const events = seededStoryLog(7, 150);
    await writeStoryLog(log, events);
    const { reactor, calls } = recording('reminders', ({ event }) => {
      if (!('participantId' in event)) return [];
      const key = `${event.signRequestId}/${event.participantId}`;
      if (event.type === 'participant-sent') return [{ type: 'remind', key, after: 72 * HOUR }];
      if (event.type === 'participant-signed' || event.type === 'participant-declined') {
        return [{ type: 'cancel', key }];
      }
      return [];
    });
    const fired = firedReminders(events, 72 * HOUR).map(
      ({ event }) => `${event.signRequestId}/${event.participantId}`,
    );
    const run = await createFileReactorRunner({
      logPath: log,
      reactors: [reactor],
      drain: true,
    }).run();
    expect(run.isOk()).toBe(true);
    const executed = calls.map((call) => (call.effect as { key: string }).key);
    expect(new Set(executed).size).toBe(executed.length);
    expect(executed.sort()).toEqual(fired.sort());
    // Some were cancelled in time and some were not: the check is not vacuous.
    expect(fired.length).toBeGreaterThan(10);
    expect(fired.length).toBeLessThan(
      events.filter((e) => e.event.type === 'participant-sent').length,
    );
  });

  it('parks a failing effect after exactly maxAttempts, each delay inside the documented bounds; retry and skip act on it', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const events = seededStoryLog(3, 40);
    await writeStoryLog(log, events);
    let failing = true;
    const completed = events.filter((e) => e.event.type === 'sign-request-completed');
    const [bad, worse] = completed.map((e) => e.event.signRequestId);
    const { reactor, calls } = recording(
      'documents',
      ({ event }) =>
        event.type === 'sign-request-completed' ? [{ type: 'fetch', id: event.signRequestId }] : [],
      (effect) => failing && (effect.id === bad || effect.id === worse),
    );
    const run = (
      await createFileReactorRunner({ logPath: log, reactors: [reactor], drain: true }).run()
    )._unsafeUnwrap();
    expect(run.report.parked.map((p) => [p.attempts, p.lastError])).toEqual([
      [4, expect.stringMatching(/^refused documents:\d+:0$/)],
      [4, expect.stringMatching(/^refused documents:\d+:0$/)],
    ]);
    for (const id of [bad, worse]) {
      const attempts = calls.filter((call) => call.effect.id === id);
      expect(attempts.map((call) => call.attempt)).toEqual([1, 2, 3, 4]);
      for (let n = 1; n < attempts.length; n += 1) {
        const gap = (attempts[n]?.at ?? 0) - (attempts[n - 1]?.at ?? 0);
        const { minMs, maxMs } = retryDelayBounds(reactor.retry, n);
        expect(gap).toBeGreaterThanOrEqual(minMs - 2);
        // Not seconds when the policy says milliseconds; how late a busy machine wakes the
        // runner after the due time is no bound of the policy.
        expect(gap).toBeLessThanOrEqual(maxMs + 5_000);
      }
    }
    const [first, second] = run.report.parked;
    failing = false;
    expect(
      (await editJournal(log, { edit: 'retry', ids: [first?.id ?? 0] }))._unsafeUnwrap(),
    ).toEqual({
      changed: [first?.id],
      refused: [],
    });
    expect(
      (await editJournal(log, { edit: 'skip', ids: [second?.id ?? 0, 999_999] }))._unsafeUnwrap(),
    ).toEqual({
      changed: [second?.id],
      refused: [{ id: 999_999, reason: 'no such effect' }],
    });
    const before = calls.length;
    const again = (
      await createFileReactorRunner({ logPath: log, reactors: [reactor], drain: true }).run()
    )._unsafeUnwrap();
    expect(calls.slice(before).map((call) => [call.key, call.attempt])).toEqual([
      [first?.idempotencyKey, 1],
    ]);
    expect(again.report.parked).toEqual([]);
    expect(again.report.reactors[0]).toMatchObject({
      pending: 0,
      parked: 0,
      done: completed.length - 1,
    });
  });

  it('starts a new reactor at the end of the log with from: end', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const events = seededStoryLog(5, 50);
    const cut = Math.floor(events.length / 2);
    await writeStoryLog(log, events.slice(0, cut));
    const { reactor, calls } = documents();
    await createFileReactorRunner({
      logPath: log,
      reactors: [reactor],
      drain: true,
      from: 'end',
    }).run();
    expect(calls).toEqual([]);
    await appendFile(
      log,
      events
        .slice(cut)
        .map((e) => `${envelopeLine(e)}\n`)
        .join(''),
    );
    await createFileReactorRunner({
      logPath: log,
      reactors: [reactor],
      drain: true,
      from: 'end',
    }).run();
    const expected = events.slice(cut).filter((e) => e.event.type === 'sign-request-completed');
    expect(calls.map((call) => call.key).sort()).toEqual(
      expected.map((e) => `documents:${e.position}:0`).sort(),
    );
  });

  it('follows appends until stopped, and refuses a second runner on the same log meanwhile', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const events = seededStoryLog(9, 40);
    await writeStoryLog(log, events.slice(0, 10));
    const { reactor, calls } = documents();
    const runner = createFileReactorRunner({ logPath: log, reactors: [reactor], pollMs: 20 });
    const stop = new AbortController();
    const running = runner.run(stop.signal);
    await eventually(
      async () => (await readFile(`${log}.reactors.lock`, 'utf8').catch(() => '')) !== '',
      'the runner to take its lock',
    );
    const second = await createFileReactorRunner({
      logPath: log,
      reactors: [reactor],
      drain: true,
    }).run();
    expect(second._unsafeUnwrapErr().kind).toBe('locked');
    expect(second._unsafeUnwrapErr().message).toContain('stop it first');
    await appendFile(
      log,
      events
        .slice(10)
        .map((e) => `${envelopeLine(e)}\n`)
        .join(''),
    );
    runner.notify();
    const expected = events.filter((e) => e.event.type === 'sign-request-completed').length;
    await eventually(() => calls.length >= expected, 'the effects of the appended events');
    stop.abort();
    const summary = (await running)._unsafeUnwrap();
    expect(summary.succeeded).toBe(expected);
    expect(runner.report().reactors[0]?.done).toBe(expected);
  });
});
