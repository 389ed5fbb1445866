/**
 * Stuck requests: `sent`, not deleted, and sent longer ago than a threshold,
 * measured against the latest `receivedAt` of the log (not the clock, so the
 * report of a log never changes).
 */
import type { ProjectionState } from '../projections/projection-state.js';
import { participantsAwaitingAction } from '../projections/queries.js';
import type { ParticipantView, SignRequestView } from '../projections/records.js';
import { LISTED_ROWS, type StuckModel, type StuckRequest } from './report-model.js';
import type { RequestTimes } from './request-times.js';
import { shellQuote } from './shell-quote.js';

/** The `signfold inspect` command line for one request of the log named by the words `source`. */
export const inspectCommand = (source: readonly string[], id: number): string =>
  `signfold inspect ${source.map(shellQuote).join(' ')} --sign-request ${id}`;

/** Stuck requests, oldest first (then by id), at most {@link LISTED_ROWS} listed. */
export const buildStuck = (
  state: ProjectionState,
  times: ReadonlyMap<number, RequestTimes>,
  latest: number | undefined,
  thresholdMs: number,
  source: readonly string[],
): StuckModel => {
  const asOf = latest === undefined ? undefined : new Date(latest).toISOString();
  if (latest === undefined)
    return { thresholdMs, asOf, total: 0, byCompany: new Map(), listed: [] };
  const awaiting = new Map<number, ParticipantView[]>();
  for (const p of participantsAwaitingAction(state)) {
    const list = awaiting.get(p.signRequestId);
    if (list === undefined) awaiting.set(p.signRequestId, [p]);
    else list.push(p);
  }
  const stuck: { request: SignRequestView; sentAt: number }[] = [];
  for (const request of state.signRequests.values()) {
    if (request.deleted || request.status !== 'sent') continue;
    const sentAt = times.get(request.id)?.sentAt;
    if (sentAt !== undefined && latest - sentAt > thresholdMs) {
      stuck.push({ request, sentAt });
    }
  }
  const byCompany = new Map<number, number>();
  for (const { request } of stuck) {
    if (request.companyId !== null) {
      byCompany.set(request.companyId, (byCompany.get(request.companyId) ?? 0) + 1);
    }
  }
  stuck.sort((a, b) => a.sentAt - b.sentAt || a.request.id - b.request.id);
  const listed = stuck.slice(0, LISTED_ROWS).map(({ request, sentAt }): StuckRequest => {
    const id = request.id;
    return {
      id,
      name: request.name,
      companyId: request.companyId,
      templateName: request.templateName,
      sentAt: new Date(sentAt).toISOString(),
      ageMs: latest - sentAt,
      awaiting: (awaiting.get(id) ?? []).map((p) => ({ id: p.id, name: p.name, status: p.status })),
      inspectCommand: inspectCommand(source, id),
    };
  });
  return { thresholdMs, asOf, total: stuck.length, byCompany, listed };
};
