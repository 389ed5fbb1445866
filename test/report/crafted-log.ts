/**
 * A crafted log for the report's figures: two companies, templates, senders
 * and owners named by the hostile corpus, requests completed, declined, open
 * for a day, stuck for weeks, and fully signed without a completion (a
 * missed webhook); conflicts, invalid events and bad lines that differ only
 * in their numbers. Every line is an envelope with a receivedAt and a
 * delivery id, except the bad lines.
 */
import { events } from '../../src/testing/index.js';
import { corpusNames, EXTRA_NAMES } from './hostile-log.js';

export const DAY = 86_400_000;
/** The first receivedAt of the log. */
export const START = Date.UTC(2025, 4, 1, 8, 0, 0);
/** Days the requests' sending is spread over; the last event comes 2 days after. */
export const SPAN_DAYS = 60;

type Outcome = 'completed' | 'declined' | 'open' | 'all-signed';
const OUTCOMES: readonly Outcome[] = ['completed', 'completed', 'declined', 'open', 'all-signed'];

/** The log's lines, in receivedAt order (bad lines among them). */
export const craftedLogLines = (requests = 240): string[] => {
  const names = [...EXTRA_NAMES, ...corpusNames()].slice(0, 24);
  const timed: { at: number; line: (position: number) => string }[] = [];
  let delivery = 0;
  const add = (at: number, event: object): void => {
    delivery += 1;
    const id = `dlv-${delivery}`;
    timed.push({
      at,
      line: (position) =>
        JSON.stringify({
          position,
          receivedAt: new Date(START + at).toISOString(),
          deliveryId: id,
          event,
        }),
    });
  };
  const templates = [0, 1, 2, 3, 4, 5].map((i) => ({
    companyId: 1 + (i % 2),
    templateId: 700 + i,
    templateName: names[i] ?? `T${i}`,
    ownerId: 40 + (i % 3),
    ownerName: names[(i + 6) % names.length] ?? 'owner',
  }));
  for (const t of templates) add(0, events.templateActivated(t));
  for (let n = 0; n < requests; n += 1) {
    const t = templates[(n * 7) % templates.length] ?? templates[0];
    if (t === undefined) continue;
    // Skewed: some templates complete far worse than others.
    const outcome = OUTCOMES[(n * (t.templateId % 4 === 0 ? 3 : 1)) % OUTCOMES.length] ?? 'open';
    const senderId = 60 + (n % 5);
    const common = {
      ...t,
      signRequestId: 90_000 + n,
      signRequestName: names[n % names.length] ?? 'r',
      senderId,
      senderName: names[(senderId * 3) % names.length] ?? 's',
    };
    const sentAt = Math.floor((n / requests) * SPAN_DAYS * DAY) + 1000;
    add(sentAt, events.signRequestSent(common));
    const people = 1 + (n % 3);
    for (let p = 1; p <= people; p += 1) {
      const who = {
        ...common,
        participantId: p,
        participantName: names[(n + p) % names.length] ?? 'p',
      };
      add(sentAt + p * 60_000, events.participantSent(who));
      if (outcome !== 'open' || p > 1) add(sentAt + p * 3_600_000, events.participantViewed(who));
      if (outcome === 'completed' || outcome === 'all-signed') {
        add(sentAt + (n % 9) * DAY + 4 * 3_600_000 + p * 1000, events.participantSigned(who));
      }
    }
    if (outcome === 'completed')
      add(sentAt + (n % 9) * DAY + 4 * 3_600_000 + 10_000, events.signRequestCompleted(common));
    if (outcome === 'declined') {
      add(
        sentAt + 2 * DAY,
        events.participantDeclined({ ...common, participantId: 1, participantName: 'x' }),
      );
      add(sentAt + 2 * DAY + 1000, events.signRequestDeclined(common));
    }
    // Conflicts: a completion after a decline (the first final event stands).
    if (outcome === 'declined' && n % 4 === 2)
      add(sentAt + 3 * DAY, events.signRequestCompleted(common));
    // Invalid events: an unknown type, numbered like the request.
    if (n % 17 === 0) add(sentAt + 5000, { ...common, type: 'sign-request-expired' });
  }
  add((SPAN_DAYS + 2) * DAY, events.templateActivated({ ...templates[0], templateName: 'late' }));
  timed.sort((a, b) => a.at - b.at);
  const lines: string[] = [];
  timed.forEach((t, index) => {
    lines.push(t.line(index + 1));
    // Bad lines that differ only in a number.
    if (index % 97 === 50) lines.push(`{"position":${index + 2},"broken`);
  });
  return lines;
};
