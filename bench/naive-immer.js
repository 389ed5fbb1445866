// Baseline 3: the textbook approach this library exists to beat: one immer
// `produce` per event over a whole-state object. Each write copies the
// touched collection, so the cost per event grows with the number of records.
import { produce } from 'immer';

const STATUS = {
  'sign-request-sent': 'sent',
  'sign-request-completed': 'completed',
  'sign-request-declined': 'declined',
};
const PARTICIPANT = {
  'participant-sent': 'sent',
  'participant-viewed': 'viewed',
  'participant-signed': 'signed',
  'participant-declined': 'declined',
};

/**
 * Folds wire events with one `produce` per event; stops after `budgetMs`.
 * @param {readonly Record<string, unknown>[]} events
 * @param {number} budgetMs
 * @returns {{ processed: number, ms: number }}
 */
export const naiveImmerFold = (events, budgetMs) => {
  let state = { templates: {}, signRequests: {}, participants: {} };
  const started = performance.now();
  let processed = 0;
  for (const e of events) {
    state = produce(state, (d) => {
      if (e.type.startsWith('template-')) {
        d.templates[e.templateId] = { name: e.templateName, status: e.type.slice(9) };
      } else if (e.type in STATUS || e.type === 'sign-request-deleted') {
        const r = d.signRequests[e.signRequestId] ?? { status: 'draft', deleted: false };
        if (e.type === 'sign-request-deleted') r.deleted = true;
        else r.status = STATUS[e.type];
        r.name = e.signRequestName;
        d.signRequests[e.signRequestId] = r;
      } else {
        const key = `${e.signRequestId}/${e.participantId}`;
        const p = d.participants[key] ?? { status: 'sent', views: 0 };
        if (e.type in PARTICIPANT) p.status = PARTICIPANT[e.type];
        if (e.type === 'participant-viewed') p.views += 1;
        d.participants[key] = p;
      }
    });
    processed += 1;
    if ((processed & 255) === 0 && performance.now() - started > budgetMs) break;
  }
  return { processed, ms: performance.now() - started };
};
