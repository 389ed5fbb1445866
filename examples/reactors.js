// Reactors for an e-signature integration (docs/reactors.md shows this file):
//   - fetch the signed document when a sign request completes;
//   - remind a participant 72 hours after they were sent the request, unless they sign or
//     decline first (in event time: replaying history does not send stale reminders);
//   - write a CRM note in SQL, in the projection transaction itself (PostgreSQL only: exactly once).
//
// On PostgreSQL, with the CRM table created once:
//   CREATE TABLE crm_notes (sign_request_id bigint PRIMARY KEY, note text NOT NULL);
//   npm run build && SIGNED_DOCUMENTS_URL=https://... REMINDERS_URL=https://... \
//     signfold pg work --database "$DATABASE_URL" --reactors examples/reactors.js
// On a file log, run the first two (`signfold react` refuses SQL effects):
//   signfold react events.ndjson --reactors examples/reactors.js --drain   (exit 2: crm-notes has SQL)
import { defineReactor } from '../dist/core/reactors/index.js';

/** How long after `participant-sent` a reminder goes out. */
export const REMIND_AFTER_MS = 72 * 60 * 60 * 1000;

/**
 * POSTs `body` to `url` with the effect's idempotency key, so the receiver can drop a repeat
 * (an effect runs again if a crash took it between its call and the record of its outcome).
 * A non-2xx answer is a failure: the effect is retried with backoff, then parked.
 * @param {string | undefined} url
 * @param {unknown} body
 * @param {{ idempotencyKey: string; signal: AbortSignal }} ctx
 */
const post = async (url, body, ctx) => {
  if (url === undefined || url === '') throw new Error('no URL configured for this effect');
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': ctx.idempotencyKey },
    body: JSON.stringify(body),
    signal: ctx.signal,
  });
  await answer.arrayBuffer();
  if (!answer.ok) throw new Error(`${url} answered ${answer.status}`);
};

/** Fetches the signed document of every completed sign request. */
export const signedDocuments = defineReactor({
  name: 'signed-documents',
  react: ({ event }) =>
    event.type === 'sign-request-completed'
      ? [{ type: 'fetch-signed-document', signRequestId: event.signRequestId }]
      : [],
  execute: (effect, ctx) =>
    post(
      `${process.env.SIGNED_DOCUMENTS_URL}/sign-requests/${effect.signRequestId}/document`,
      effect,
      ctx,
    ),
  retry: { maxAttempts: 8, baseDelayMs: 1000, maxDelayMs: 300_000 },
});

/** One reminder per participant, 72 h after they were sent the request, cancelled by their answer. */
export const reminders = defineReactor({
  name: 'reminders',
  react: ({ event }) => {
    if (!('participantId' in event)) return [];
    const key = `participant:${event.signRequestId}:${event.participantId}`;
    if (event.type === 'participant-sent') {
      return [
        {
          type: 'remind-participant',
          key,
          after: REMIND_AFTER_MS,
          signRequestId: event.signRequestId,
          participantId: event.participantId,
        },
      ];
    }
    if (event.type === 'participant-signed' || event.type === 'participant-declined') {
      return [{ type: 'cancel', key }];
    }
    return [];
  },
  execute: (effect, ctx) => post(process.env.REMINDERS_URL, effect, ctx),
});

/** A CRM note per completed request, written in the projection transaction (PostgreSQL). */
export const crmNotes = defineReactor({
  name: 'crm-notes',
  react: ({ event, after }) =>
    event.type === 'sign-request-completed'
      ? [
          {
            type: 'crm-note',
            signRequestId: event.signRequestId,
            name: after.signRequest?.name ?? '',
          },
        ]
      : [],
  sql: {
    'crm-note': (effect) => ({
      text: 'INSERT INTO crm_notes (sign_request_id, note) VALUES ($1, $2)',
      values: [effect.signRequestId, `completed: ${effect.name}`],
    }),
  },
});

export default [signedDocuments, reminders, crmNotes];
