/**
 * The reminders a story log (story-log.ts) must fire, each rule written again
 * here, apart from the runners it checks: in time order
 * ({@link firedReminders}), with one cancel for a whole request
 * ({@link requestReminders}), and with events stored behind the watermark
 * ({@link expectedReminders}, docs/reactors.md, "Late events").
 */
import type { LateSchedule, StoredEvent, WireEvent } from './story-log.js';

const HOUR = 3600 * 1000;
/** What the reminder reactors of the late-timer laws wait for. */
export const REMIND_AFTER_MS = 72 * HOUR;

/** `signRequestId/participantId`: the reminder a participant-sent event starts. */
export const reminderOf = (event: WireEvent): string =>
  `${event.signRequestId}/${event.participantId}`;

const isCancel = (event: WireEvent): boolean =>
  event.type === 'participant-signed' || event.type === 'participant-declined';

/**
 * The participant-sent events whose reminder (`afterMs` later, cancelled by
 * the participant's signature or decline) fires, by the rule of the issue:
 * before an event received at r, every timer due at or before r has fired,
 * and a later cancel no longer touches it; once the log ends, every timer
 * left fires (the wall clock is past them all).
 */
export const firedReminders = <E extends StoredEvent>(
  events: readonly E[],
  afterMs: number,
): E[] => {
  const pending = new Map<string, { due: number; sent: E }>();
  const fired: E[] = [];
  for (const logged of events) {
    for (const [key, timer] of pending) {
      if (timer.due <= logged.receivedAt) {
        fired.push(timer.sent);
        pending.delete(key);
      }
    }
    const { event } = logged;
    const key = reminderOf(event);
    if (event.type === 'participant-sent')
      pending.set(key, { due: logged.receivedAt + afterMs, sent: logged });
    if (isCancel(event)) pending.delete(key);
  }
  for (const timer of pending.values()) fired.push(timer.sent);
  return fired;
};

/**
 * `request/participant` of the reminders that fire (all are long due) when a
 * decline cancels the whole request (docs/reactors.md, "One cancel for a
 * whole request"): a participant's, unless their own signature or any
 * decline of the request (a participant's or the request's) was received
 * before it was due.
 */
export const requestReminders = (events: readonly StoredEvent[], afterMs: number): string[] =>
  events.flatMap(({ event, receivedAt }) => {
    if (event.type !== 'participant-sent') return [];
    const due = receivedAt + afterMs;
    const cancelled = events.some(
      (later) =>
        later.event.signRequestId === event.signRequestId &&
        later.receivedAt < due &&
        (later.event.type === 'participant-declined' ||
          later.event.type === 'sign-request-declined' ||
          (later.event.type === 'participant-signed' &&
            later.event.participantId === event.participantId)),
    );
    return cancelled ? [] : [reminderOf(event)];
  });

/** What happened to the reminder of the participant-sent event stored at `index`. */
export interface ReminderFate {
  readonly reminder: string;
  readonly due: number;
  /** Where the run that catches up past it stopped reading (a count of stored events). */
  readonly releasedAt: number;
  /** The stored indices of its cancels, received before it was due, anywhere after it. */
  readonly cancels: readonly number[];
}

/**
 * Every reminder of `schedule` ({@link REMIND_AFTER_MS} after its participant
 * is sent), from the stored order alone: its cancels and the run that
 * releases it if still scheduled.
 */
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
