/**
 * Logs where events are not stored in the order they happened, for the laws
 * of late timers (docs/reactors.md, "Late events"): sign requests whose
 * history happened days ago (participants sent, then signing, declining or
 * doing nothing up to 150 h later) and live ones (the last two hours), their
 * events interleaved at random, each request's own events in their order,
 * with runs of the reactor runner at random points. The reminders that must
 * fire are written again here from the stored order alone.
 */
import fc from 'fast-check';

const HOUR = 3600 * 1000;
const MINUTE = 60 * 1000;
/** What the reminder reactors of the laws wait for. */
export const REMIND_AFTER_MS = 72 * HOUR;

/** One event as stored: when it was received, and its wire form. */
export interface StoredEvent {
  readonly receivedAt: number;
  readonly deliveryId: string;
  readonly event: Readonly<Record<string, unknown>> & {
    readonly type: string;
    readonly signRequestId: number;
    readonly participantId?: number;
  };
}

/** Events in the order they are stored, and after how many of them the runner runs. */
export interface LateSchedule {
  readonly stored: readonly StoredEvent[];
  /** Counts of stored events at each run, increasing; the last is `stored.length`. */
  readonly runsAt: readonly number[];
}

type Fate = { readonly kind: 'sign' | 'decline' | 'none'; readonly after: number };
interface RequestPlan {
  readonly live: boolean;
  readonly startAgo: number;
  readonly fates: readonly Fate[];
}

const member = (signRequestId: number) => ({
  companyId: 1,
  ownerId: 10,
  ownerName: 'Olive Owner',
  signRequestId,
  signRequestName: `Request ${signRequestId}`,
  senderId: 20,
  senderName: 'Sam Sender',
  templateId: 100,
  templateName: 'NDA',
});
const participant = (participantId: number) => ({
  participantId,
  partcipantName: `Participant ${participantId}`,
  roleId: 7,
  roleName: 'Signer',
});

const requestArb: fc.Arbitrary<RequestPlan> = fc.record({
  live: fc.boolean(),
  // History: 10 to 40 days ago; live: within the last 2 hours (its timers are not due).
  startAgo: fc.integer({ min: 0, max: 30 * 24 }),
  fates: fc.array(
    fc.record({
      kind: fc.constantFrom('sign' as const, 'decline' as const, 'none' as const),
      after: fc.integer({ min: 1, max: 150 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
});

/** A request's events in the order they happened. */
const historyOf = (plan: RequestPlan, index: number, now: number): StoredEvent[] => {
  const id = 1000 + index;
  // Live requests happen within the last two hours (minutes for hours); history 10–40 days ago.
  const unit = plan.live ? MINUTE / 2 : HOUR;
  const start = plan.live ? now - 2 * HOUR : now - (240 + plan.startAgo) * HOUR;
  const timed: { at: number; event: StoredEvent['event'] }[] = [
    { at: start, event: { type: 'sign-request-sent', ...member(id) } },
  ];
  plan.fates.forEach((fate, i) => {
    const p = i + 1;
    const sent = start + p * MINUTE;
    timed.push({ at: sent, event: { type: 'participant-sent', ...member(id), ...participant(p) } });
    if (fate.kind === 'none') return;
    const at = sent + fate.after * unit;
    if (fate.kind === 'sign') {
      timed.push({ at, event: { type: 'participant-signed', ...member(id), ...participant(p) } });
      return;
    }
    // A decline carries no template members (the spec's table of events).
    const { templateId: _, templateName: __, ...declining } = member(id);
    timed.push({ at, event: { type: 'participant-declined', ...declining, ...participant(p) } });
  });
  // Stable: same-time events keep their order.
  timed.sort((a, b) => a.at - b.at);
  return timed.map(({ at, event }, n) => ({
    receivedAt: at,
    deliveryId: `r${id}-${n}`,
    event,
  }));
};

/**
 * Random schedules: 1–6 requests, their events interleaved by `picks`, a
 * run after each stored event that `runs` marks, and one at the end.
 */
export const lateScheduleArb = (now: number): fc.Arbitrary<LateSchedule> =>
  fc
    .record({
      requests: fc.array(requestArb, { minLength: 1, maxLength: 6 }),
      picks: fc.array(fc.nat({ max: 5 }), { maxLength: 40 }),
      runs: fc.array(fc.boolean(), { maxLength: 40 }),
    })
    .map(({ requests, picks, runs }) => {
      const queues = requests.map((plan, i) => historyOf(plan, i, now));
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

/** `signRequestId/participantId`: the reminder a participant-sent event starts. */
export const reminderOf = (event: StoredEvent['event']): string =>
  `${event.signRequestId}/${event.participantId}`;

const isCancel = (event: StoredEvent['event']): boolean =>
  event.type === 'participant-signed' || event.type === 'participant-declined';

/** What happened to the reminder of the participant-sent event stored at `index`. */
export interface ReminderFate {
  readonly reminder: string;
  readonly due: number;
  /** Where the run that catches up past it stopped reading (a count of stored events). */
  readonly releasedAt: number;
  /** The stored indices of its cancels, received before it was due, anywhere after it. */
  readonly cancels: readonly number[];
}

/** Every reminder of `schedule`, with its cancels and the run that releases it if still scheduled. */
export const reminderFates = (schedule: LateSchedule): ReminderFate[] =>
  schedule.stored.flatMap(({ event, receivedAt }, index) => {
    if (event.type !== 'participant-sent') return [];
    const reminder = reminderOf(event);
    const due = receivedAt + REMIND_AFTER_MS;
    const cancels = schedule.stored.flatMap((later, at) =>
      at > index &&
      isCancel(later.event) &&
      reminderOf(later.event) === reminder &&
      later.receivedAt < due
        ? [at]
        : [],
    );
    const releasedAt = schedule.runsAt.find((count) => count > index) as number;
    return [{ reminder, due, releasedAt, cancels }];
  });

/**
 * The reminders that fire, by the rule: one is due by the wall clock at the
 * first run after it is stored (history) or never during the test (live);
 * it fires unless one of its cancels was stored before that run read the log.
 */
export const expectedReminders = (schedule: LateSchedule, now: number): string[] =>
  reminderFates(schedule)
    .filter(({ due, releasedAt, cancels }) => due <= now && !cancels.some((at) => at < releasedAt))
    .map(({ reminder }) => reminder)
    .sort();
