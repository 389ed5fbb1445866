/**
 * The API's answers are untrusted input, like deliveries: `reconcile` with
 * the hostile corpus as answers, with mutated representations and with
 * hostile names. Whatever comes back, reconcile never throws, stores only
 * what decodes as the request asked for, reports the rest per request, and
 * every record it stores replays without a quarantine.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signRequestId } from '../../src/core/ids.js';
import { createProjector, type ReconcileResult, reconcile } from '../../src/index.js';
import { createMemoryEventLog } from '../../src/store/index.js';
import { events } from '../../src/testing/index.js';
import { HOSTILE_CORPUS } from '../support/hostile-corpus.js';

const ID = signRequestId(1000);

/** A log where request 1000 was sent to participant 5, and the state it replays to. */
const sentRequest = async () => {
  const log = createMemoryEventLog();
  await log.append(events.signRequestSent());
  await log.append(events.participantSent());
  const projector = createProjector();
  await projector.replay(log);
  return { log, state: projector.state() };
};

const recordsIn = async (log: ReturnType<typeof createMemoryEventLog>) => {
  let n = 0;
  for await (const batch of log.read()) n += batch.length;
  return n;
};

const VALID = {
  id: 1000,
  name: 'NDA for Ada',
  status: 'Completed',
  formType: 'Form',
  savedTime: '2026-11-20 10:00:00',
  participants: [{ id: 5, name: 'Ada Lovelace', status: 'Signed' }],
};

const reconcileWith = async (answer: unknown) => {
  const { log, state } = await sentRequest();
  const summary = await reconcile({
    state,
    log,
    fetch: async () => answer,
    signRequestIds: [ID],
    ratePerSecond: 1000,
  });
  return { log, summary, result: summary.results[0] as ReconcileResult };
};

describe('reconcile with hostile answers from the API', () => {
  it('every line of the hostile corpus, as the answer (text or parsed), fails for its request and stores nothing', async () => {
    const lines = readFileSync(HOSTILE_CORPUS, 'latin1')
      .split('\n')
      .filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(40);
    for (const line of lines) {
      const answers: unknown[] = [line];
      try {
        answers.push(JSON.parse(line));
      } catch {
        // Not JSON: the text alone.
      }
      for (const answer of answers) {
        const { log, result } = await reconcileWith(answer);
        expect(result.kind, line.slice(0, 80)).toBe('failed');
        expect(await recordsIn(log)).toBe(2);
      }
    }
  });

  it('a mutated representation is stored only when it decodes as the request asked for, and what is stored replays clean', async () => {
    const text = JSON.stringify(VALID);
    const mutation = fc.oneof(
      fc.nat({ max: text.length }).map((cut) => text.slice(0, cut)),
      fc
        .tuple(fc.nat({ max: text.length - 1 }), fc.string({ minLength: 1, maxLength: 3 }))
        .map(([at, put]) => `${text.slice(0, at)}${put}${text.slice(at + 1)}`),
      fc
        .record({
          status: fc.string(),
          id: fc.oneof(fc.integer(), fc.constant(1000)),
          name: fc.string(),
        })
        .map((changes) => JSON.stringify({ ...VALID, ...changes })),
    );
    await fc.assert(
      fc.asyncProperty(mutation, async (answer) => {
        const { log, result } = await reconcileWith(answer);
        const stored = (await recordsIn(log)) - 2;
        expect(stored).toBe(result.kind === 'repaired' ? 1 : 0);
        if (result.kind === 'failed') expect(result.reason.length).toBeGreaterThan(0);
        const projector = createProjector();
        await projector.replay(log);
        expect(projector.quarantine()).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('a fetch that throws a non-Error, or a value whose getter throws, is one failed result', async () => {
    const { log, state } = await sentRequest();
    const hostile = Object.defineProperty({}, 'id', {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    });
    const answers: (() => Promise<unknown>)[] = [
      () => Promise.reject(Symbol('no')),
      () => Promise.reject(null),
      () => Promise.resolve(hostile),
      () => {
        throw new Error('synchronous');
      },
    ];
    let call = 0;
    const summary = await reconcile({
      state,
      log,
      fetch: () => (answers[call++] as () => Promise<unknown>)(),
      signRequestIds: [ID, signRequestId(1001), signRequestId(1002), signRequestId(1003)],
      ratePerSecond: 1000,
    });
    expect(summary.results.map((r) => r.kind)).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(await recordsIn(log)).toBe(2);
  });

  it('hostile names in a representation are stored as they are and replay to the same names', async () => {
    const names = [
      '\u001b[2J\u001b[31mAda',
      '\u202eadA',
      '<script>alert(1)</script>',
      'A\u0000da',
      'x'.repeat(20_000),
    ];
    for (const name of names) {
      const { log, result } = await reconcileWith({
        ...VALID,
        participants: [{ id: 5, name, status: 'Signed' }],
      });
      expect(result.kind).toBe('repaired');
      const projector = createProjector();
      await projector.replay(log);
      expect(projector.quarantine()).toEqual([]);
      expect(projector.getParticipant(ID, 5 as never)).toMatchObject({ name, status: 'signed' });
    }
  });
});

describe('reconcile bounds its waits', () => {
  it('starts at most ratePerSecond fetches a second, and a stop signal ends the run between requests', async () => {
    const { log, state } = await sentRequest();
    const starts: number[] = [];
    const controller = new AbortController();
    const summary = await reconcile({
      state,
      log,
      fetch: async () => {
        starts.push(performance.now());
        if (starts.length === 3) controller.abort();
        return VALID;
      },
      signRequestIds: [1000, 1001, 1002, 1003, 1004].map(signRequestId),
      ratePerSecond: 5,
      signal: controller.signal,
    });
    expect(starts).toHaveLength(3);
    // A lower bound only: a busy machine may start them later, never sooner.
    for (let i = 1; i < starts.length; i += 1) {
      expect((starts[i] as number) - (starts[i - 1] as number)).toBeGreaterThanOrEqual(195);
    }
    expect(summary.stopped).toBe(true);
    expect(summary.results).toHaveLength(3);
  });

  it('refuses invalid options as a programming error', async () => {
    const { log, state } = await sentRequest();
    const fetch = async () => VALID;
    await expect(reconcile({ state, log, fetch, ratePerSecond: 0 })).rejects.toThrow(RangeError);
    await expect(reconcile({ state, log, fetch, fetchTimeoutMs: Number.NaN })).rejects.toThrow(
      RangeError,
    );
    await expect(reconcile({ state, fetch })).rejects.toThrow(/log is needed unless dryRun/);
  });
});
