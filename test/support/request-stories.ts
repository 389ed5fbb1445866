/**
 * Logs for reactors that see the whole request (docs/reactors.md, "One cancel
 * for a whole request"): requests numbered 1, 2, … (so `remind:1/` sits beside
 * `remind:10/` and `remind:11/`) whose 1–3 participants sign, decline or do
 * nothing 1–150 hours after being sent; the first decline is followed a
 * minute later by `sign-request-declined`. Sorted by time, as received.
 */
import { mulberry32 } from '../../bench/generate-stream.js';
import type { LoggedEvent } from './reactor-logs.js';

const HOUR = 3600 * 1000;
const MINUTE = 60 * 1000;

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

/** `signRequests` stories from `seed`, from 2025-01-06 on; see the module comment. */
export const declineStories = (seed: number, signRequests: number): LoggedEvent[] => {
  const random = mulberry32(seed);
  const start = Date.UTC(2025, 0, 6);
  const timed: { at: number; order: number; event: Record<string, unknown> }[] = [];
  const add = (at: number, event: Record<string, unknown>): void => {
    timed.push({ at, order: timed.length, event });
  };
  for (let id = 1; id <= signRequests; id += 1) {
    const sentAt = start + Math.floor(random() * 30 * 24) * HOUR;
    add(sentAt, { type: 'sign-request-sent', ...member(id), ...template });
    const count = 1 + Math.floor(random() * 3);
    let firstDecline = Number.POSITIVE_INFINITY;
    for (let p = 1; p <= count; p += 1) {
      const sent = sentAt + MINUTE * p;
      add(sent, { type: 'participant-sent', ...member(id), ...template, ...participant(p) });
      const fate = random();
      const at = sent + (1 + Math.floor(random() * 150)) * HOUR;
      if (fate < 0.55) {
        add(at, { type: 'participant-signed', ...member(id), ...template, ...participant(p) });
      } else if (fate < 0.8) {
        add(at, { type: 'participant-declined', ...member(id), ...participant(p) });
        firstDecline = Math.min(firstDecline, at);
      }
    }
    if (Number.isFinite(firstDecline)) {
      add(firstDecline + MINUTE, { type: 'sign-request-declined', ...member(id) });
    }
  }
  timed.sort((a, b) => a.at - b.at || a.order - b.order);
  return timed.map((item, index) => ({
    position: index + 1,
    receivedAt: item.at,
    event: item.event,
  }));
};

/**
 * `request/participant` of the reminders that fire (all are long due): a
 * participant's, unless their own signature or any decline of the request
 * (a participant's or the request's) was received before it was due.
 */
export const requestReminders = (events: readonly LoggedEvent[], afterMs: number): string[] =>
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
    return cancelled ? [] : [`${event.signRequestId}/${event.participantId}`];
  });
