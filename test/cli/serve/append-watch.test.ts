/**
 * The append deadline of `signfold serve` has one owner, the storage: `watchAppends` runs no timer
 * of its own (two timers with the same value raced, and the 503 went out uncounted when the
 * storage's won). It counts a timeout when, and only when, the storage answers with a `timeout`
 * failure, and the handler answers that failure 503 with its message as the reason. The file log's
 * deadline, `withAppendDeadline`, answers with that same failure.
 */
import { err, ok, type Result } from 'neverthrow';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withAppendDeadline } from '../../../src/cli/serve/append-deadline.js';
import { STALL_MS, watchAppends } from '../../../src/cli/serve/append-watch.js';
import type { ServeStorage } from '../../../src/cli/serve/storage.js';
import type {
  AppendOutcome,
  AppendTimeout,
  EventLog,
  LogFailure,
} from '../../../src/engine/event-log.js';
import { createWebhookHandler } from '../../../src/webhooks/webhook-handler.js';

type Answer = Result<AppendOutcome, LogFailure>;

/** A log whose appends wait until the test settles them, in call order. */
const heldLog = () => {
  const waiting: { settle: (answer: Answer) => void; fail: (cause: unknown) => void }[] = [];
  const log: Pick<EventLog, 'append'> = {
    append: () =>
      new Promise<Answer>((settle, fail) => {
        waiting.push({ settle, fail });
      }),
  };
  return { log, waiting };
};

const APPENDED: Answer = ok({ kind: 'appended', position: 1, receivedAt: '2024-01-01T00:00:00Z' });

const TIMEOUT: AppendTimeout = {
  kind: 'timeout',
  timeoutMs: 2000,
  message: 'appending to signfold.events: no commit within 2 s (…); deliver it again',
};

/** What `watchAppends` told of, in order. */
const recorder = () => {
  const heard: string[] = [];
  return {
    heard,
    events: {
      onTimeout: () => heard.push('timeout'),
      onChange: (change: { unavailable: string } | { availableAfterMs: number }) =>
        heard.push('unavailable' in change ? `unavailable: ${change.unavailable}` : 'available'),
    },
  };
};

/** Lets the promise continuations queued so far run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('watchAppends', () => {
  it("counts a storage's timeout once, passes it on unchanged, and reports the outage with it", async () => {
    const { log, waiting } = heldLog();
    const { heard, events } = recorder();
    const watched = watchAppends(log, 2000, events);
    const answer = watched.log.append({ type: 'x' });
    waiting[0]?.settle(err(TIMEOUT));
    expect(await answer).toEqual(err(TIMEOUT));
    expect(heard).toEqual(['timeout', `unavailable: ${TIMEOUT.message}`]);
  });

  it('runs no timer of its own: an append the storage does not answer stays unanswered', async () => {
    vi.useFakeTimers();
    try {
      const { log } = heldLog();
      const { heard, events } = recorder();
      let clock = 0;
      const watched = watchAppends(log, 1000, events, () => clock);
      let answered = false;
      void watched.log.append({ type: 'x' }).then(() => {
        answered = true;
      });
      expect(vi.getTimerCount()).toBe(0);
      clock = 60_000;
      await vi.advanceTimersByTimeAsync(60_000);
      expect(answered).toBe(false);
      expect(heard).toEqual([]);
      // /readyz still hears of it: the stall detection is the watcher's.
      expect(watched.stalled()).toBe('appends are not completing: one has waited 60 s');
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not count the other failures, nor the refusals of a delivery, nor successes', async () => {
    const { log, waiting } = heldLog();
    const { heard, events } = recorder();
    const watched = watchAppends(log, 2000, events);
    const answers = [
      watched.log.append(1),
      watched.log.append(2),
      watched.log.append(3),
      watched.log.append(4),
    ];
    waiting[0]?.settle(err({ kind: 'too-large', message: 'too large' }));
    waiting[1]?.settle(err({ kind: 'database', message: 'connection refused' }));
    waiting[2]?.settle(err({ kind: 'io', message: 'ENOSPC' }));
    waiting[3]?.settle(APPENDED);
    await Promise.all(answers);
    expect(heard).toEqual(['unavailable: connection refused', 'available']);
  });

  it('counts each timeout once, and the outage once', async () => {
    const { log, waiting } = heldLog();
    const { heard, events } = recorder();
    const watched = watchAppends(log, 2000, events);
    const answers = [watched.log.append(1), watched.log.append(2)];
    for (const held of waiting) held.settle(err(TIMEOUT));
    await Promise.all(answers);
    expect(heard).toEqual(['timeout', `unavailable: ${TIMEOUT.message}`, 'timeout']);
  });

  it('passes a rejection on, reports the outage, and forgets the append', async () => {
    const { log, waiting } = heldLog();
    const { heard, events } = recorder();
    let clock = 0;
    const watched = watchAppends(log, 5000, events, () => clock);
    const answer = watched.log.append(1);
    clock = STALL_MS + 1;
    expect(watched.stalled()).toMatch(/^appends are not completing: one has waited 3 s$/);
    waiting[0]?.fail(new Error('broken'));
    await expect(answer).rejects.toThrow('broken');
    expect(heard).toEqual(['unavailable: broken']);
    expect(watched.stalled()).toBeUndefined();
  });

  it('calls the storage stuck past the deadline when that is shorter than STALL_MS', () => {
    const { log } = heldLog();
    let clock = 0;
    const watched = watchAppends(log, 1000, recorder().events, () => clock);
    void watched.log.append(1);
    clock = 1000;
    expect(watched.stalled()).toBeUndefined();
    clock = 1001;
    expect(watched.stalled()).toBe('appends are not completing: one has waited 1 s');
  });
});

describe("the handler on a storage's timeout", () => {
  it('answers 503 with Retry-After and the reason, counted once', async () => {
    const { log, waiting } = heldLog();
    const { heard, events } = recorder();
    const watched = watchAppends(log, 2000, events);
    const handler = createWebhookHandler({
      log: watched.log,
      secrets: [],
      insecureNoSignature: true,
    });
    const answer = handler({
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-delivery-id': 'd-1' },
      body: new TextEncoder().encode('{"type":"template-deleted"}'),
    });
    while (waiting.length === 0) await settle();
    waiting[0]?.settle(err(TIMEOUT));
    const response = await answer;
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(JSON.parse(response.body)).toEqual({ error: TIMEOUT.message });
    expect(response.outcome).toMatchObject({ kind: 'unavailable', reason: TIMEOUT.message });
    expect(heard.filter((event) => event === 'timeout')).toHaveLength(1);
  });
});

describe('withAppendDeadline (the file log’s deadline)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const storageOn = (
    log: Pick<EventLog, 'append'>,
    probe: () => Promise<string | undefined> = async () => undefined,
  ): ServeStorage => ({
    log,
    description: 'file log test',
    probe,
    close: async () => undefined,
  });

  it('answers an append not committed by the deadline with a timeout, counted once by the watcher', async () => {
    const { log, waiting } = heldLog();
    const { heard, events } = recorder();
    const bounded = withAppendDeadline(storageOn(log), 2000, () => Date.now());
    const watched = watchAppends(bounded.log, 2000, events);
    const answer = watched.log.append(1);
    await vi.advanceTimersByTimeAsync(1999);
    expect(heard).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    const result = await answer;
    expect(result.isErr() && result.error).toEqual({
      kind: 'timeout',
      timeoutMs: 2000,
      message:
        'no commit within 2 s (--append-timeout): the storage does not answer; it may or may not be stored: deliver it again',
    });
    // The log settles it later: the caller had its answer, nothing is counted again.
    waiting[0]?.settle(APPENDED);
    await vi.advanceTimersByTimeAsync(0);
    expect(heard.filter((event) => event === 'timeout')).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes an answer in time through, and leaves no timer behind', async () => {
    const { log, waiting } = heldLog();
    const bounded = withAppendDeadline(storageOn(log), 2000, () => Date.now());
    const answer = bounded.log.append(1);
    expect(vi.getTimerCount()).toBe(1);
    waiting[0]?.settle(APPENDED);
    expect(await answer).toEqual(APPENDED);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers each append at its own deadline, with one timer', async () => {
    const { log } = heldLog();
    const bounded = withAppendDeadline(storageOn(log), 2000, () => Date.now());
    const answeredAt: number[] = [];
    const started = Date.now();
    const first = bounded.log.append(1).then(() => answeredAt.push(Date.now() - started));
    await vi.advanceTimersByTimeAsync(500);
    const second = bounded.log.append(2).then(() => answeredAt.push(Date.now() - started));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(2000);
    await Promise.all([first, second]);
    expect(answeredAt).toEqual([2000, 2500]);
  });

  it('passes a rejection of the log on', async () => {
    const { log, waiting } = heldLog();
    const bounded = withAppendDeadline(storageOn(log), 2000, () => Date.now());
    const answer = bounded.log.append(1);
    waiting[0]?.fail(new Error('broken'));
    await expect(answer).rejects.toThrow('broken');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('tells /readyz of an append the log is still working on, past its deadline too', async () => {
    const { log, waiting } = heldLog();
    const bounded = withAppendDeadline(
      storageOn(log, async () => 'from the file'),
      5000,
      () => Date.now(),
    );
    void bounded.log.append(1);
    expect(await bounded.probe()).toBe('from the file');
    await vi.advanceTimersByTimeAsync(STALL_MS + 100);
    expect(await bounded.probe()).toBe('appends are not completing: one has waited 3.1 s');
    // Answered at its deadline, still not committed: the disk is stuck, and /readyz says so.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await bounded.probe()).toBe('appends are not completing: one has waited 13.1 s');
    waiting[0]?.settle(APPENDED);
    await vi.advanceTimersByTimeAsync(0);
    expect(await bounded.probe()).toBe('from the file');
  });
});
