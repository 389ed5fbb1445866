/**
 * Stuck requests: open (`sent`, not deleted) and sent longer ago than a
 * threshold, measured against "now" (when the report was made, `--now`, or
 * the end of the period: see `referenceTime`), so a request keeps ageing
 * after deliveries stop. Each says who sent it, when
 * anything last happened to it, who is awaited since when, and whether every
 * participant signed without a completion arriving (a missed webhook).
 */
import type { ProjectionState } from '../../core/projections/projection-state.js';
import { participantsAwaitingAction } from '../../core/projections/queries.js';
import type { ParticipantView, SignRequestView } from '../../core/projections/records.js';
import { LISTED_ROWS, type StuckModel, type StuckRequest } from './report-model.js';
import type { ClassifiedRequest } from './request-figures.js';
import { awaitedSince } from './request-times.js';
import { shellQuote } from './shell-quote.js';

/** The `signfold inspect` command line for one request of the log named by the words `source`. */
export const inspectCommandLine = (source: readonly string[], id: number): string =>
  `signfold inspect ${source.map(shellQuote).join(' ')} --sign-request ${id}`;

/**
 * The `signfold reconcile` command line that asks the service's API about
 * `ids` (docs/cli.md#reconcile); `MODULE` stands for the team's fetch module.
 */
export const reconcileCommandLine = (source: readonly string[], ids: readonly number[]): string =>
  `signfold reconcile ${source.map(shellQuote).join(' ')} --fetch MODULE${ids
    .map((id) => ` --sign-request ${id}`)
    .join('')}`;

const iso = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : new Date(ms).toISOString();

/**
 * Whether an open request has participants and every one of them signed: the
 * service then completes it, so a missing `sign-request-completed` is a lost
 * delivery (or one still on its way).
 */
export const allSigned = (state: ProjectionState, request: SignRequestView): boolean => {
  const participants = state.participants.get(request.id);
  if (participants === undefined || participants.size === 0) return false;
  for (const p of participants.values()) if (p.status !== 'signed') return false;
  return true;
};

/** Stuck requests of `requests`, oldest first (then by id), at most {@link LISTED_ROWS} listed. */
export const buildStuck = (
  state: ProjectionState,
  requests: readonly ClassifiedRequest[],
  /** "Now" (epoch ms); `undefined` when the log has no `receivedAt` (no age can be told). */
  now: number | undefined,
  thresholdMs: number,
  source: readonly string[],
): StuckModel => {
  const asOf = iso(now);
  if (now === undefined) {
    return { thresholdMs, asOf, total: 0, byCompany: new Map(), listed: [], source };
  }
  const stuck = requests.filter((r) => r.stuck);
  const byCompany = new Map<number, number>();
  for (const { request } of stuck) {
    if (request.companyId !== null) {
      byCompany.set(request.companyId, (byCompany.get(request.companyId) ?? 0) + 1);
    }
  }
  const ids = new Set(stuck.map((r) => r.request.id));
  const awaiting = new Map<number, ParticipantView[]>();
  for (const p of participantsAwaitingAction(state)) {
    if (!ids.has(p.signRequestId)) continue;
    const list = awaiting.get(p.signRequestId);
    if (list === undefined) awaiting.set(p.signRequestId, [p]);
    else list.push(p);
  }
  const sentAt = (r: ClassifiedRequest): number => r.times?.sentAt ?? 0;
  stuck.sort((a, b) => sentAt(a) - sentAt(b) || a.request.id - b.request.id);
  const listed = stuck.slice(0, LISTED_ROWS).map(({ request, times }): StuckRequest => {
    const id = request.id;
    const sent = times?.sentAt ?? 0;
    return {
      id,
      name: request.name,
      companyId: request.companyId,
      templateName: request.templateName,
      sentAt: new Date(sent).toISOString(),
      ageMs: now - sent,
      senderId: request.senderId,
      senderName: request.senderName,
      lastActivity: iso(times?.lastActivityAt),
      awaiting: (awaiting.get(id) ?? []).map((p) => ({
        id: p.id,
        name: p.name,
        status: p.status,
        since: iso(awaitedSince(times, p.id)),
      })),
      allSigned: allSigned(state, request),
      inspectCommand: inspectCommandLine(source, id),
    };
  });
  return { thresholdMs, asOf, total: stuck.length, byCompany, listed, source };
};
