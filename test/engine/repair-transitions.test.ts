/**
 * A repair's changes step through the states: each rebuilt event's `before`
 * is the previous one's `after`, so the transitions reactors see after a
 * repair are those the lost deliveries would have shown, each once; and the
 * repaired views carry the observation's time, marked as such.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import type { SignEvent } from '../../src/core/events/sign-event.js';
import { observationRecord } from '../../src/core/observations/observation-record.js';
import type { ParticipantView } from '../../src/core/projections/records.js';
import type { Change } from '../../src/core/reactors/reactor-types.js';
import { createProjector, decodeSignRequest } from '../../src/index.js';
import { createMemoryEventLog } from '../../src/store/index.js';

const REQUEST = 1000;
const FETCHED = new Date('2026-12-01T09:00:00.000Z');
const at = (i: number) => new Date(Date.UTC(2026, 10, 20, 10, 0, i));

type Fate = 'sent' | 'viewed' | 'signed' | 'declined' | 'viewed-signed' | 'viewed-declined';

/** Each participant's fate and an interleaving of their events. */
const lifecycleArb = fc
  .uniqueArray(fc.constantFrom(5, 6, 7), { minLength: 1, maxLength: 3 })
  .chain((ids) =>
    fc.record({
      fates: fc.tuple(
        ...ids.map((id) =>
          fc
            .constantFrom<Fate>(
              'sent',
              'viewed',
              'signed',
              'declined',
              'viewed-signed',
              'viewed-declined',
            )
            .map((fate) => [id, fate] as const),
        ),
      ),
      order: fc.infiniteStream(fc.nat()),
    }),
  );

/** The deliveries of a whole lifecycle: sent, each participant's events interleaved, the outcome. */
const deliveriesOf = ({
  fates,
  order,
}: {
  readonly fates: readonly (readonly [number, Fate])[];
  readonly order: fc.Stream<number>;
}): SignEvent[] => {
  const queues = fates.map(([id, fate]) =>
    [
      'participant-sent',
      ...fate
        .split('-')
        .filter((s) => s !== 'sent')
        .map((s) => `participant-${s}`),
    ].map((type) =>
      buildEvent(type as SignEvent['type'], { signRequestId: REQUEST, participantId: id }),
    ),
  );
  const out: SignEvent[] = [buildEvent('sign-request-sent', { signRequestId: REQUEST })];
  const picks = order[Symbol.iterator]();
  while (queues.some((q) => q.length > 0)) {
    const open = queues.filter((q) => q.length > 0);
    const queue = open[(picks.next().value as number) % open.length] as SignEvent[];
    out.push(queue.shift() as SignEvent);
  }
  const outcomes = fates.map(([, fate]) => fate.split('-').at(-1));
  if (outcomes.includes('declined'))
    out.push(buildEvent('sign-request-declined', { signRequestId: REQUEST }));
  else if (outcomes.every((s) => s === 'signed'))
    out.push(buildEvent('sign-request-completed', { signRequestId: REQUEST }));
  return out;
};

const API_STATUS: Record<ParticipantView['status'], string> = {
  sent: 'Sent',
  viewed: 'Viewed',
  signed: 'Signed',
  declined: 'Declined',
};

/** What a reactor reads of a change. */
type Seen = Pick<Change, 'event' | 'before' | 'after'> & {
  readonly observation: Change['observation'] | undefined;
};

/** Replays `records`, returning the changes reactors were handed and the projector. */
const run = async (records: readonly (SignEvent | Record<string, unknown>)[]) => {
  const log = createMemoryEventLog();
  for (const [i, record] of records.entries()) await log.append(record, { receivedAt: at(i) });
  const changes: Seen[] = [];
  // The views are read while the change is handed over, as a reactor's react reads them.
  const projector = createProjector({
    onApplied: ({ event, observation, before, after }) =>
      changes.push({ event, observation, before, after }),
  });
  (await projector.replay(log))._unsafeUnwrap();
  return { changes, projector };
};

/** The statuses each record passes through, as the changes show them; checks each change starts where the last one left it. */
const pathsOf = (changes: readonly Seen[]) => {
  const paths = new Map<string, (string | undefined)[]>();
  const step = (key: string, from: string | undefined, to: string | undefined) => {
    const path = paths.get(key) ?? [undefined];
    // Stepping: a change starts from the state the previous change of the record left.
    expect(from, `${key} starts where its last change left it`).toBe(path.at(-1));
    if (to !== from) path.push(to);
    paths.set(key, path);
  };
  for (const change of changes) {
    step('request', change.before.signRequest?.status, change.after.signRequest?.status);
    if ('participantId' in change.event) {
      const key = `participant ${change.event.participantId}`;
      step(key, change.before.participant?.status, change.after.participant?.status);
    }
  }
  return paths;
};

const isSubsequence = <T>(part: readonly T[], whole: readonly T[]): boolean => {
  let i = 0;
  for (const item of whole) if (i < part.length && part[i] === item) i += 1;
  return i === part.length;
};

describe('the changes of a repair', () => {
  it('step through the states: after random losses, reactors see the transitions the lost deliveries would have shown, each once', async () => {
    let repaired = 0;
    let manyEvents = 0;
    await fc.assert(
      fc.asyncProperty(
        lifecycleArb.chain((life) => {
          const deliveries = deliveriesOf(life);
          // The first delivery is kept: a request known from nothing has no sender to rebuild its events with.
          return fc.tuple(
            fc.constant(deliveries),
            fc.array(fc.boolean(), {
              minLength: deliveries.length - 1,
              maxLength: deliveries.length - 1,
            }),
          );
        }),
        async ([deliveries, lost]) => {
          const full = await run(deliveries);
          const request = full.projector.getSignRequest(REQUEST);
          const participants = [5, 6, 7].flatMap(
            (id) => full.projector.getParticipant(REQUEST, id) ?? [],
          );
          const api = decodeSignRequest({
            id: REQUEST,
            name: request?.name,
            status: request?.status,
            formType: 'Form',
            savedTime: '2026-11-20 10:00:00',
            participants: participants.map((p) => ({
              id: p.id,
              name: p.name,
              status: API_STATUS[p.status],
              role: { id: p.roleId, name: p.roleName },
            })),
          })._unsafeUnwrap();
          const kept = deliveries.filter((_, i) => i === 0 || lost[i - 1] !== true);
          const healed = await run([...kept, observationRecord(api, { fetchedAt: FETCHED })]);

          const repair = healed.changes.filter((c) => c.observation !== undefined);
          if (repair.length > 0) repaired += 1;
          if (repair.length > 1) manyEvents += 1;
          // The same final statuses, every transition rebuilt.
          expect(healed.projector.getSignRequest(REQUEST)?.status).toBe(request?.status);
          for (const p of participants) {
            expect(healed.projector.getParticipant(REQUEST, p.id)?.status).toBe(p.status);
          }
          const want = pathsOf(full.changes);
          const seen = pathsOf(healed.changes);
          expect([...seen.keys()].sort()).toEqual([...want.keys()].sort());
          for (const [key, path] of want) {
            const got = seen.get(key) ?? [];
            // Forward only, never a status twice, ending where the deliveries ended.
            expect(isSubsequence(got, path), `${key}: ${got} within ${path}`).toBe(true);
            expect(got.at(-1)).toBe(path.at(-1));
            expect(new Set(got).size).toBe(got.length);
          }
          // The last change of a repair leaves the views as the repair did.
          const last = repair.at(-1);
          if (last !== undefined) {
            expect(last.after.signRequest).toEqual(healed.projector.getSignRequest(REQUEST));
          }
        },
      ),
      { numRuns: 150 },
    );
    // The losses must produce repairs, and repairs of several events, or the law says little.
    expect(repaired).toBeGreaterThan(50);
    expect(manyEvents).toBeGreaterThan(30);
  });

  it('a reactor that acts on the transition to completed acts once for a request whose signature and completion were lost', async () => {
    const deliveries = [
      buildEvent('sign-request-sent', { signRequestId: REQUEST }),
      buildEvent('participant-sent', { signRequestId: REQUEST, participantId: 5 }),
    ];
    const api = decodeSignRequest({
      id: REQUEST,
      name: deliveries[0]?.type === 'sign-request-sent' ? deliveries[0].signRequestName : '',
      status: 'completed',
      formType: 'Form',
      savedTime: '2026-11-20 10:00:00',
      participants: [
        { id: 5, name: 'Ada Lovelace', status: 'Signed', role: { id: 7, name: 'Signer' } },
      ],
    })._unsafeUnwrap();
    const { changes, projector } = await run([
      ...deliveries,
      observationRecord(api, { fetchedAt: FETCHED }),
    ]);
    const completions = changes.filter(
      (c) =>
        c.before.signRequest?.status !== 'completed' && c.after.signRequest?.status === 'completed',
    );
    expect(completions.map((c) => c.event.type)).toEqual(['sign-request-completed']);
    const [signed, done] = changes.filter((c) => c.observation !== undefined);
    expect(signed?.event.type).toBe('participant-signed');
    expect(signed?.after.signRequest?.status).toBe('sent');
    expect(done?.before.signRequest).toBe(signed?.after.signRequest);
    // The repaired views carry the observation's time, marked as such; the delivered times stay.
    expect(projector.getSignRequest(REQUEST)).toMatchObject({
      sentAt: at(0).toISOString(),
      completedAt: FETCHED.toISOString(),
      outcomeFrom: 'observation',
    });
    expect(projector.getParticipant(REQUEST, 5)).toMatchObject({
      sentAt: at(1).toISOString(),
      signedAt: FETCHED.toISOString(),
      outcomeFrom: 'observation',
    });
    // The change in between holds no outcome time the request had not reached.
    expect(signed?.after.signRequest).toMatchObject({ completedAt: null, outcomeFrom: null });
  });
});
