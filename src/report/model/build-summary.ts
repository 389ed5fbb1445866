/**
 * The summary strip and the people tables, from the classified requests of
 * the period: the same figures for all requests, each company, each sender
 * and each owner, so the page's company filter can switch between them.
 */

import type { ProjectionState } from '../../core/projections/projection-state.js';
import type { QuarantineEntry } from '../../engine/quarantine.js';
import { LISTED_ROWS } from './report-model.js';
import type { ReportPeriod } from './report-period.js';
import { type ClassifiedRequest, figuresOf, groupRequests } from './request-figures.js';
import { allSigned } from './stuck-requests.js';
import {
  AGE_BUCKETS,
  type AsOfBasis,
  type PeopleModel,
  type PersonRow,
  type ScopedFigures,
  type SummaryModel,
} from './summary-model.js';

const iso = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : new Date(ms).toISOString();

const scoped = (
  state: ProjectionState,
  companyId: number | null,
  requests: readonly ClassifiedRequest[],
): ScopedFigures => {
  const openByAge = AGE_BUCKETS.map(() => 0);
  const signed: number[] = [];
  for (const r of requests) {
    if (r.outcome !== 'open') continue;
    if (allSigned(state, r.request)) signed.push(r.request.id);
    if (r.openMs === undefined) continue;
    const index = AGE_BUCKETS.findIndex((bucket) => (r.openMs ?? 0) < bucket.below);
    openByAge[index] = (openByAge[index] ?? 0) + 1;
  }
  return {
    companyId,
    figures: figuresOf(requests),
    openByAge,
    allSigned: signed.length,
    allSignedIds: signed.sort((a, b) => a - b).slice(0, LISTED_ROWS),
  };
};

/** What the summary is built from. */
export interface SummaryInput {
  readonly state: ProjectionState;
  readonly requests: readonly ClassifiedRequest[];
  readonly period: ReportPeriod;
  readonly latest: number | undefined;
  /** What ages are measured against, and why (see `referenceTime`). */
  readonly asOf: { readonly ms: number; readonly basis: AsOfBasis; readonly given: boolean };
  readonly staleAfterMs: number;
  readonly firstInPeriod: number | undefined;
  readonly lastInPeriod: number | undefined;
  readonly stuckAfterMs: number;
  /** The quarantined records of the period (see `quarantineOfPeriod`). */
  readonly quarantine: readonly QuarantineEntry[];
  /** Repairs from the API in the period. */
  readonly repairs: number;
}

/** The summary strip: all requests, then each company when there are several. */
export const buildSummary = (input: SummaryInput): SummaryModel => {
  const { state, requests } = input;
  const byCompany = groupRequests(requests, (r) => r.request.companyId ?? undefined);
  const companies = [...byCompany.keys()].sort((a, b) => a - b);
  let badLines = 0;
  let invalidEvents = 0;
  let conflicts = 0;
  for (const entry of input.quarantine) {
    if (entry.reason.kind === 'bad-line') badLines += 1;
    else if (entry.reason.kind === 'invalid-event') invalidEvents += 1;
    else conflicts += 1;
  }
  return {
    first: iso(input.firstInPeriod),
    last: iso(input.lastInPeriod),
    from: iso(input.period.fromMs),
    to: iso(input.period.toMs),
    asOf: new Date(input.asOf.ms).toISOString(),
    asOfBasis: input.asOf.basis,
    asOfGiven: input.asOf.given,
    lastDelivery: iso(input.latest),
    silentMs: input.latest === undefined ? undefined : input.asOf.ms - input.latest,
    staleAfterMs: input.staleAfterMs,
    stuckAfterMs: input.stuckAfterMs,
    // One company: its figures are those of all, and the page has no filter to choose it.
    scopes: [
      scoped(state, null, requests),
      ...(companies.length < 2 ? [] : companies).map((id) =>
        scoped(state, id, byCompany.get(id) ?? []),
      ),
    ],
    badLines,
    invalidEvents,
    conflicts,
    repairs: input.repairs,
  };
};

const people = (
  requests: readonly ClassifiedRequest[],
  pick: (r: ClassifiedRequest) => { id: number; name: string | undefined } | undefined,
): PersonRow[] => {
  // A user id is one person of one company: the same id in two companies is two rows.
  // Maps by company then user: a string key per request costs a tenth of a second on 1M events.
  const byCompany = new Map<number | null, Map<number, ClassifiedRequest[]>>();
  for (const r of requests) {
    const who = pick(r);
    if (who === undefined) continue;
    let users = byCompany.get(r.request.companyId);
    if (users === undefined) {
      users = new Map();
      byCompany.set(r.request.companyId, users);
    }
    const list = users.get(who.id);
    if (list === undefined) users.set(who.id, [r]);
    else list.push(r);
  }
  const groups = [...byCompany.values()].flatMap((users) => [...users.values()]);
  const rows: PersonRow[] = [];
  for (const list of groups) {
    const first = list[0];
    const who = first === undefined ? undefined : pick(first);
    if (first === undefined || who === undefined) continue;
    // The name of the latest sent request of the group (names change; ids do not).
    let latest = first;
    for (const r of list) if ((r.times?.sentAt ?? 0) > (latest.times?.sentAt ?? 0)) latest = r;
    rows.push({
      userId: who.id,
      name: pick(latest)?.name ?? `user ${who.id}`,
      companyId: first.request.companyId,
      figures: figuresOf(list),
    });
  }
  return rows.sort(
    (a, b) =>
      b.figures.sent - a.figures.sent ||
      (a.companyId ?? -1) - (b.companyId ?? -1) ||
      a.userId - b.userId,
  );
};

/** Requests per sender and per owner, as the sign request's latest event named them. */
export const buildPeople = (requests: readonly ClassifiedRequest[]): PeopleModel => ({
  senders: people(requests, ({ request }) =>
    request.senderId === undefined ? undefined : { id: request.senderId, name: request.senderName },
  ),
  owners: people(requests, ({ request }) =>
    request.ownerId === undefined ? undefined : { id: request.ownerId, name: request.ownerName },
  ),
});
