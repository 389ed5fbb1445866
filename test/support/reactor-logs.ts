/**
 * Event logs for reactor tests, written in wire form: sign requests whose
 * participants are sent, then sign (or decline, or do nothing) after a
 * seeded number of hours, with `receivedAt` times that follow the story.
 */
import { writeFile } from 'node:fs/promises';
import { mulberry32 } from '../../bench/generate-stream.js';

/** One stored event of a generated log. */
export interface LoggedEvent {
  readonly position: number;
  readonly receivedAt: number;
  readonly event: Record<string, unknown>;
}

const HOUR = 3600 * 1000;

const member = (signRequestId: number) => ({
  companyId: 1,
  ownerId: 10,
  ownerName: 'Olive Owner',
  signRequestId,
  signRequestName: `Request ${signRequestId}`,
  senderId: 20,
  senderName: 'Sam Sender',
});
const template = { templateId: 100, templateName: 'NDA' };
const participant = (participantId: number) => ({
  participantId,
  partcipantName: `Participant ${participantId}`,
  roleId: 7,
  roleName: 'Signer',
});

/**
 * `signRequests` requests, each with 1–3 participants sent, who sign or
 * decline 1–150 hours later or never; requests whose participants all
 * signed complete an hour after the last signature. Sorted by time.
 */
export const storyEvents = (
  seed: number,
  signRequests: number,
  start = Date.UTC(2025, 0, 6),
): LoggedEvent[] => {
  const random = mulberry32(seed);
  const timed: { at: number; order: number; event: Record<string, unknown> }[] = [];
  let order = 0;
  const add = (at: number, event: Record<string, unknown>): void => {
    timed.push({ at, order: order++, event });
  };
  for (let index = 0; index < signRequests; index += 1) {
    const id = 1000 + index;
    const sentAt = start + Math.floor(random() * 30 * 24) * HOUR;
    add(sentAt, { type: 'sign-request-sent', ...member(id), ...template });
    const count = 1 + Math.floor(random() * 3);
    let allSigned = true;
    let lastSigned = sentAt;
    for (let p = 1; p <= count; p += 1) {
      const participantSent = sentAt + 60_000 * p;
      add(participantSent, {
        type: 'participant-sent',
        ...member(id),
        ...template,
        ...participant(p),
      });
      const fate = random();
      const after = (1 + Math.floor(random() * 150)) * HOUR;
      if (fate < 0.7) {
        add(participantSent + after, {
          type: 'participant-signed',
          ...member(id),
          ...template,
          ...participant(p),
        });
        lastSigned = Math.max(lastSigned, participantSent + after);
      } else {
        allSigned = false;
        if (fate < 0.85) {
          add(participantSent + after, {
            type: 'participant-declined',
            ...member(id),
            ...participant(p),
          });
        }
      }
    }
    if (allSigned)
      add(lastSigned + HOUR, { type: 'sign-request-completed', ...member(id), ...template });
  }
  timed.sort((a, b) => a.at - b.at || a.order - b.order);
  return timed.map((item, index) => ({
    position: index + 1,
    receivedAt: item.at,
    event: item.event,
  }));
};

/** The envelope line of `logged`. */
export const envelopeLine = (logged: LoggedEvent): string =>
  JSON.stringify({
    position: logged.position,
    receivedAt: new Date(logged.receivedAt).toISOString(),
    deliveryId: `delivery-${logged.position}`,
    event: logged.event,
  });

/** Writes `events` as a log of envelopes. */
export const writeStoryLog = async (
  path: string,
  events: readonly LoggedEvent[],
): Promise<void> => {
  await writeFile(path, events.map((logged) => `${envelopeLine(logged)}\n`).join(''));
};

/**
 * The participant-sent events whose reminder (`afterMs` later, cancelled by
 * the participant's signature or decline) fires, by the rule of the issue
 * written again here: before an event received at r, every timer due at or
 * before r has fired, and a later cancel no longer touches it; once the log
 * ends, every timer left fires (the wall clock is past them all).
 */
export const firedReminders = (events: readonly LoggedEvent[], afterMs: number): LoggedEvent[] => {
  const pending = new Map<string, { due: number; sent: LoggedEvent }>();
  const fired: LoggedEvent[] = [];
  for (const logged of events) {
    for (const [key, timer] of pending) {
      if (timer.due <= logged.receivedAt) {
        fired.push(timer.sent);
        pending.delete(key);
      }
    }
    const { event } = logged;
    const key = `${event.signRequestId}/${event.participantId}`;
    if (event.type === 'participant-sent')
      pending.set(key, { due: logged.receivedAt + afterMs, sent: logged });
    if (event.type === 'participant-signed' || event.type === 'participant-declined')
      pending.delete(key);
  }
  for (const timer of pending.values()) fired.push(timer.sent);
  return fired;
};
