/**
 * Story logs: the event logs of the reactor tests, in wire form, built from
 * the stories of sign requests. A request is sent, its participants are sent
 * a minute apart, and each one signs, declines or does nothing some time
 * later; the request may end with the event its participants' fates make.
 * One builder ({@link storyLog}) turns stories into stored events, sorted by
 * the time they happened; the stories come from a seed
 * ({@link seededStoryLog}), from fast-check ({@link lateScheduleArb}, whose
 * events are stored out of the order they happened), or from the test
 * ({@link wireEvent} for a log written event by event).
 *
 * The rules the tests hold the runners to are in reminder-rules.ts.
 */
import { writeFile } from 'node:fs/promises';
import fc from 'fast-check';
import { mulberry32 } from '../../bench/generate-stream.js';

const HOUR = 3600 * 1000;
const MINUTE = 60 * 1000;

/** An event in wire form, as a story makes it. */
export type WireEvent = Readonly<Record<string, unknown>> & {
  readonly type: string;
  readonly signRequestId: number;
  readonly participantId?: number;
};

/** One event as stored: when it was received, its delivery id, and its wire form. */
export interface StoredEvent {
  readonly receivedAt: number;
  readonly deliveryId: string;
  readonly event: WireEvent;
}

/** A stored event with its position in the log (1, 2, …). */
export interface StoryEvent extends StoredEvent {
  readonly position: number;
}

/** The types that carry the template's members (the spec's table of events). */
const WITH_TEMPLATE = new Set([
  'sign-request-sent',
  'sign-request-completed',
  'participant-sent',
  'participant-signed',
]);

/**
 * A `type` event of sign request `signRequestId` (company 1, owner 10, sender
 * 20, template 100), of participant `participantId` (role 7) if given, with
 * the template's members where the type has them.
 */
export const wireEvent = (
  type: string,
  signRequestId: number,
  participantId?: number,
): WireEvent => ({
  type,
  companyId: 1,
  ownerId: 10,
  ownerName: 'Olive Owner',
  signRequestId,
  signRequestName: `Request ${signRequestId}`,
  senderId: 20,
  senderName: 'Sam Sender',
  ...(WITH_TEMPLATE.has(type) ? { templateId: 100, templateName: 'NDA' } : {}),
  ...(participantId === undefined
    ? {}
    : {
        participantId,
        partcipantName: `Participant ${participantId}`,
        roleId: 7,
        roleName: 'Signer',
      }),
});

/** What a participant does, `after` ms after being sent ('none': nothing at all). */
export interface ParticipantFate {
  readonly fate: 'sign' | 'decline' | 'none';
  readonly after: number;
}

/** One sign request's story. */
export interface RequestStory {
  readonly signRequestId: number;
  /** When the request is sent; participant p (1, 2, …) is sent p minutes later. */
  readonly sentAt: number;
  readonly participants: readonly ParticipantFate[];
  /**
   * How the request ends: 'completed', an hour after the last signature when
   * every participant signed; 'declined', a minute after the first decline;
   * 'open' (the default), with no event of its own.
   */
  readonly ending?: 'completed' | 'declined' | 'open';
}

/** A story's events in the order they happened (same-time events in the order written). */
export const requestEvents = (story: RequestStory): { at: number; event: WireEvent }[] => {
  const id = story.signRequestId;
  const timed = [{ at: story.sentAt, event: wireEvent('sign-request-sent', id) }];
  let lastSigned = story.sentAt;
  let firstDecline = Number.POSITIVE_INFINITY;
  story.participants.forEach(({ fate, after }, i) => {
    const p = i + 1;
    const sent = story.sentAt + p * MINUTE;
    timed.push({ at: sent, event: wireEvent('participant-sent', id, p) });
    const at = sent + after;
    if (fate === 'sign') {
      timed.push({ at, event: wireEvent('participant-signed', id, p) });
      lastSigned = Math.max(lastSigned, at);
    } else if (fate === 'decline') {
      timed.push({ at, event: wireEvent('participant-declined', id, p) });
      firstDecline = Math.min(firstDecline, at);
    }
  });
  if (story.ending === 'completed' && story.participants.every(({ fate }) => fate === 'sign')) {
    timed.push({ at: lastSigned + HOUR, event: wireEvent('sign-request-completed', id) });
  }
  if (story.ending === 'declined' && Number.isFinite(firstDecline)) {
    timed.push({ at: firstDecline + MINUTE, event: wireEvent('sign-request-declined', id) });
  }
  // Stable: same-time events keep their order.
  return timed.sort((a, b) => a.at - b.at);
};

/**
 * The log of `stories`: their events sorted by the time they happened (at the
 * same time, in the order of the stories, then of each story), received then,
 * at positions 1, 2, … with delivery ids `delivery-<position>`.
 */
export const storyLog = (stories: readonly RequestStory[]): StoryEvent[] =>
  stories
    .flatMap(requestEvents)
    .sort((a, b) => a.at - b.at)
    .map(({ at, event }, index) => ({
      position: index + 1,
      receivedAt: at,
      deliveryId: `delivery-${index + 1}`,
      event,
    }));

/** The seeded stories' two kinds: who signs or declines, how requests end, their ids. */
const SEEDED = {
  // 70 % sign, 15 % decline; requests numbered 1000, 1001, …
  completed: { signBelow: 0.7, declineBelow: 0.85, firstId: 1000 },
  // 55 % sign, 25 % decline; requests numbered 1, 2, … (so `remind:1/` sits beside `remind:10/`).
  declined: { signBelow: 0.55, declineBelow: 0.8, firstId: 1 },
} as const;

/**
 * The log of `signRequests` stories from `seed`: each request sent within 30
 * days of `start`, with 1–3 participants who sign, decline or do nothing
 * 1–150 hours after being sent. `ending` 'completed' (the default): 70 % sign
 * and 15 % decline, and a request whose participants all signed completes;
 * 'declined': 55 % sign and 25 % decline, and the first decline is followed
 * by sign-request-declined (docs/reactors.md, "One cancel for a whole request").
 */
export const seededStoryLog = (
  seed: number,
  signRequests: number,
  {
    ending = 'completed',
    start = Date.UTC(2025, 0, 6),
  }: {
    readonly ending?: 'completed' | 'declined';
    readonly start?: number;
  } = {},
): StoryEvent[] => {
  const random = mulberry32(seed);
  const { signBelow, declineBelow, firstId } = SEEDED[ending];
  const stories = Array.from({ length: signRequests }, (_, index): RequestStory => {
    const sentAt = start + Math.floor(random() * 30 * 24) * HOUR;
    const count = 1 + Math.floor(random() * 3);
    const participants = Array.from({ length: count }, (): ParticipantFate => {
      const draw = random();
      const after = (1 + Math.floor(random() * 150)) * HOUR;
      const fate = draw < signBelow ? 'sign' : draw < declineBelow ? 'decline' : 'none';
      return { fate, after };
    });
    return { signRequestId: firstId + index, sentAt, participants, ending };
  });
  return storyLog(stories);
};

/** The envelope line of `logged`, as a file log stores it. */
export const envelopeLine = (logged: StoryEvent): string =>
  JSON.stringify({
    position: logged.position,
    receivedAt: new Date(logged.receivedAt).toISOString(),
    deliveryId: logged.deliveryId,
    event: logged.event,
  });

/** Writes `events` as a log of envelopes. */
export const writeStoryLog = async (path: string, events: readonly StoryEvent[]): Promise<void> => {
  await writeFile(path, events.map((logged) => `${envelopeLine(logged)}\n`).join(''));
};

/** Events in the order they are stored, and after how many of them the runner runs. */
export interface LateSchedule {
  readonly stored: readonly StoredEvent[];
  /** Counts of stored events at each run, increasing; the last is `stored.length`. */
  readonly runsAt: readonly number[];
}

const lateStoryArb = fc.record({
  live: fc.boolean(),
  // History: 10 to 40 days ago; live: within the last 2 hours (its timers are not due).
  startAgo: fc.integer({ min: 0, max: 30 * 24 }),
  fates: fc.array(
    fc.record({
      fate: fc.constantFrom('sign' as const, 'decline' as const, 'none' as const),
      after: fc.integer({ min: 1, max: 150 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
});

/**
 * Random schedules for the laws of late timers (docs/reactors.md, "Late
 * events"): 1–6 requests, each either history (sent 10–40 days before `now`,
 * its participants' fates 1–150 h later) or live (sent 2 hours before `now`,
 * fates 1–150 half-minutes later), with no ending event; their events
 * interleaved at random, each request's own in their order (delivery ids
 * `r<request>-<n>`), a run after each stored event that `runs` marks, and
 * one at the end.
 */
export const lateScheduleArb = (now: number): fc.Arbitrary<LateSchedule> =>
  fc
    .record({
      requests: fc.array(lateStoryArb, { minLength: 1, maxLength: 6 }),
      picks: fc.array(fc.nat({ max: 5 }), { maxLength: 40 }),
      runs: fc.array(fc.boolean(), { maxLength: 40 }),
    })
    .map(({ requests, picks, runs }) => {
      const queues = requests.map(({ live, startAgo, fates }, index): StoredEvent[] => {
        const signRequestId = 1000 + index;
        const unit = live ? MINUTE / 2 : HOUR;
        const sentAt = live ? now - 2 * HOUR : now - (240 + startAgo) * HOUR;
        const participants = fates.map(({ fate, after }) => ({ fate, after: after * unit }));
        return requestEvents({ signRequestId, sentAt, participants }).map(({ at, event }, n) => ({
          receivedAt: at,
          deliveryId: `r${signRequestId}-${n}`,
          event,
        }));
      });
      const stored: StoredEvent[] = [];
      const runsAt: number[] = [];
      for (let step = 0; ; step += 1) {
        const open = queues.filter((queue) => queue.length > 0);
        if (open.length === 0) break;
        const queue = open[(picks[step] ?? 0) % open.length] as StoredEvent[];
        stored.push(queue.shift() as StoredEvent);
        if (runs[step] === true) runsAt.push(stored.length);
      }
      if (runsAt.at(-1) !== stored.length) runsAt.push(stored.length);
      return { stored, runsAt };
    });
