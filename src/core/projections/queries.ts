import type { CompanyId, TemplateId, UserId } from '../ids.js';
import type { ProjectionState } from './projection-state.js';
import type { ParticipantView, SignRequestStatus, SignRequestView } from './records.js';

/** Criteria for {@link findSignRequests}; all given criteria must hold. */
export interface SignRequestFilter {
  readonly status?: SignRequestStatus;
  readonly companyId?: number;
  readonly templateId?: number;
  readonly senderId?: UserId;
  /** Include deleted requests (default `false`). */
  readonly includeDeleted?: boolean;
}

/**
 * Sign requests matching every given criterion, in first-seen order.
 *
 * @example
 * ```ts
 * import { findSignRequests, fold, initialState } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state } = fold(initialState(), [
 *   events.signRequestSent({ signRequestId: 1, companyId: 1 }),
 *   events.signRequestSent({ signRequestId: 2, companyId: 2 }),
 *   events.signRequestSent({ signRequestId: 3, companyId: 2 }),
 *   events.signRequestDeleted({ signRequestId: 3, companyId: 2 }),
 * ]);
 * const sent = findSignRequests(state, { status: 'sent', companyId: 2 });
 * console.log(sent.map((r) => r.id)); // [ 2 ]
 * console.log(findSignRequests(state, { includeDeleted: true }).length); // 3
 * ```
 */
export const findSignRequests = (
  state: ProjectionState,
  filter: SignRequestFilter = {},
): SignRequestView[] => {
  const found: SignRequestView[] = [];
  for (const r of state.signRequests.values()) {
    if (r.deleted && filter.includeDeleted !== true) continue;
    if (filter.status !== undefined && r.status !== filter.status) continue;
    if (filter.companyId !== undefined && r.companyId !== filter.companyId) continue;
    if (filter.templateId !== undefined && r.templateId !== filter.templateId) continue;
    if (filter.senderId !== undefined && r.senderId !== filter.senderId) continue;
    found.push(r);
  }
  return found;
};

/**
 * Participants who still have to act: `sent` or `viewed` on a request that is
 * `sent` and not deleted. Optionally for one company.
 *
 * @example
 * ```ts
 * import { fold, initialState, participantsAwaitingAction } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state } = fold(initialState(), [
 *   events.signRequestSent(),
 *   events.participantSent({ participantId: 5 }),
 *   events.participantSent({ participantId: 6, participantName: 'Grace' }),
 *   events.participantSigned({ participantId: 6, participantName: 'Grace' }),
 * ]);
 * console.log(participantsAwaitingAction(state).map((p) => p.name)); // [ 'Ada Lovelace' ]
 * ```
 */
export const participantsAwaitingAction = (
  state: ProjectionState,
  companyId?: number,
): ParticipantView[] => {
  const waiting: ParticipantView[] = [];
  for (const [id, participants] of state.participants) {
    const request = state.signRequests.get(id);
    if (request === undefined || request.deleted || request.status !== 'sent') continue;
    if (companyId !== undefined && request.companyId !== companyId) continue;
    for (const p of participants.values()) {
      if (p.status === 'sent' || p.status === 'viewed') waiting.push(p);
    }
  }
  return waiting;
};

/** Per-template counts of (non-deleted) sign requests. */
export interface TemplateStats {
  readonly templateId: TemplateId;
  readonly companyId: CompanyId | null;
  /** Requests that reached `sent` or beyond. */
  readonly sent: number;
  readonly completed: number;
  readonly declined: number;
  /** `completed / (completed + declined)`, or `undefined` before any request finished. */
  readonly completionRate: number | undefined;
}

/**
 * Counts per template of the requests made from it, in first-seen order.
 *
 * @example
 * ```ts
 * import { fold, initialState, templateStats } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state } = fold(initialState(), [
 *   events.signRequestSent({ signRequestId: 1 }),
 *   events.signRequestCompleted({ signRequestId: 1 }),
 *   events.signRequestSent({ signRequestId: 2 }),
 *   events.signRequestDeclined({ signRequestId: 2 }),
 *   events.signRequestSent({ signRequestId: 3 }),
 * ]);
 * const [nda] = templateStats(state);
 * console.log(nda?.templateId, nda?.sent, nda?.completed, nda?.declined, nda?.completionRate); // 100 3 1 1 0.5
 * ```
 */
export const templateStats = (state: ProjectionState): TemplateStats[] => {
  const counts = new Map<
    TemplateId,
    { companyId: CompanyId | null; sent: number; completed: number; declined: number }
  >();
  for (const r of state.signRequests.values()) {
    if (r.templateId === undefined || r.deleted) continue;
    let c = counts.get(r.templateId);
    if (c === undefined) {
      c = { companyId: r.companyId, sent: 0, completed: 0, declined: 0 };
      counts.set(r.templateId, c);
    }
    if (r.status !== 'draft') c.sent += 1;
    if (r.status === 'completed') c.completed += 1;
    if (r.status === 'declined') c.declined += 1;
  }
  return [...counts].map(([templateId, c]) => {
    const finished = c.completed + c.declined;
    return {
      templateId,
      ...c,
      completionRate: finished === 0 ? undefined : c.completed / finished,
    };
  });
};

/**
 * Number of requests per status (deleted requests counted apart).
 *
 * @example
 * ```ts
 * import { countSignRequestsByStatus, fold, initialState } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state } = fold(initialState(), [
 *   events.signRequestSent({ signRequestId: 1 }),
 *   events.signRequestSent({ signRequestId: 2 }),
 *   events.signRequestCompleted({ signRequestId: 2 }),
 *   events.signRequestDeleted({ signRequestId: 1 }),
 * ]);
 * console.log(countSignRequestsByStatus(state)); // { draft: 0, sent: 0, completed: 1, declined: 0, deleted: 1 }
 * ```
 */
export const countSignRequestsByStatus = (
  state: ProjectionState,
): Readonly<Record<SignRequestStatus | 'deleted', number>> => {
  const counts = { draft: 0, sent: 0, completed: 0, declined: 0, deleted: 0 };
  for (const r of state.signRequests.values()) counts[r.deleted ? 'deleted' : r.status] += 1;
  return counts;
};
