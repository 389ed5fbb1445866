import { freeze } from 'immer';
import { err, ok, type Result } from 'neverthrow';
import type { CompanyId, ParticipantId } from '../ids.js';
import type { SignRequest } from '../sign-request/sign-request.js';
import {
  type Conflict,
  companyMismatch,
  conflict,
  participantTarget,
  signRequestTarget,
} from './conflict.js';
import {
  NO_PARTICIPANT_TIMES,
  NO_SIGN_REQUEST_TIMES,
  stampParticipantOutcome,
  stampRequestOutcome,
} from './event-times.js';
import type { Outcome, ProjectionDraft } from './projection-draft.js';
import type { ProjectionState } from './projection-state.js';
import type { ParticipantStatus, ParticipantView, SignRequestView } from './records.js';
import { participantMove, signRequestMove } from './status-rules.js';
import { WorkingCopy } from './working-copy.js';

/** Where a representation came from: the API answers per company. */
export interface RepresentationOrigin {
  /** The company whose credentials fetched it. Without it, the first event sets the company. */
  readonly companyId?: number;
}

const EVENT_TYPE = 'load-sign-request';

const checkRequest = (
  current: SignRequestView,
  snapshot: SignRequest,
  origin: RepresentationOrigin,
): Conflict | undefined => {
  if (origin.companyId !== undefined) {
    const foreign = companyMismatch(
      current,
      signRequestTarget,
      origin.companyId as CompanyId,
      EVENT_TYPE,
    );
    if (foreign !== undefined) return foreign;
  }
  const target = signRequestTarget(current);
  if (current.deleted) return conflict(target, { kind: 'deleted' }, EVENT_TYPE);
  if (signRequestMove(current.status, snapshot.status) === 'refused') {
    return conflict(
      target,
      { kind: 'invalid-transition' },
      EVENT_TYPE,
      `${current.status} → ${snapshot.status}`,
    );
  }
  return undefined;
};

const checkParticipant = (
  current: ParticipantView,
  roleId: number | undefined,
  status: ParticipantStatus | undefined,
): Conflict | undefined => {
  const target = participantTarget(current);
  if (roleId !== undefined && current.roleId !== undefined && current.roleId !== roleId) {
    return conflict(
      target,
      {
        kind: 'reference-mismatch',
        reference: 'roleId',
        expected: current.roleId,
        received: roleId,
      },
      EVENT_TYPE,
    );
  }
  if (status !== undefined && participantMove(current.status, status) === 'refused') {
    return conflict(
      target,
      { kind: 'invalid-transition' },
      EVENT_TYPE,
      `${current.status} → ${status}`,
    );
  }
  return undefined;
};

/**
 * Merges an API representation into a draft under the same rules as events:
 * statuses only move forward, deleted requests and other companies' records
 * are refused, roles never change. Participants without an `id` cannot be
 * keyed and are skipped, as are new participants listed without a status (the
 * service lists those it has not sent the request to yet); an unknown
 * participant status leaves the status as it was (`sent` for a new participant).
 * With `observedAt` (an observation's `fetchedAt`), each record it moves to
 * an outcome gets that time, marked `outcomeFrom: 'observation'`: the
 * delivery that would have carried the time was lost, and the moment the
 * service was seen to report it is the best bound left.
 */
export const applyRepresentation = (
  draft: ProjectionDraft,
  snapshot: SignRequest,
  origin: RepresentationOrigin = {},
  observedAt?: string,
): Outcome | Conflict => {
  const current = draft.signRequest(snapshot.id);
  if (current !== undefined) {
    const refused = checkRequest(current, snapshot, origin);
    if (refused !== undefined) return refused;
  }
  const participants = (snapshot.participants ?? []).filter(
    (p): p is typeof p & { readonly id: ParticipantId } =>
      p.id !== undefined &&
      (p.status !== undefined || draft.participant(snapshot.id, p.id) !== undefined),
  );
  const statusOf = (p: (typeof participants)[number]): ParticipantStatus | undefined =>
    typeof p.status === 'string' ? p.status : undefined;
  for (const p of participants) {
    const known = draft.participant(snapshot.id, p.id);
    const refused = known && checkParticipant(known, p.role?.id, statusOf(p));
    if (refused) return refused;
  }

  const companyId = current?.companyId ?? (origin.companyId as CompanyId | undefined) ?? null;
  // Read before writing: a working copy's records may be updated in place.
  const requestWas = current?.status;
  const details = {
    name: snapshot.name,
    status: snapshot.status,
    formType: snapshot.formType,
    savedTime: snapshot.savedTime,
    // Copied: publishing freezes the record deeply, and the caller's object is not ours to freeze.
    ...(snapshot.fields === undefined
      ? {}
      : {
          fields: freeze(
            snapshot.fields.map((f) => ({ ...f })),
            true,
          ),
        }),
  };
  if (current === undefined) {
    draft.addSignRequest({
      id: snapshot.id,
      companyId,
      deleted: false,
      ...details,
      ...NO_SIGN_REQUEST_TIMES,
    });
  } else {
    draft.updateSignRequest(snapshot.id, (r) => {
      Object.assign(r, details);
      r.companyId = companyId;
    });
  }
  if (observedAt !== undefined) {
    draft.updateSignRequest(snapshot.id, (r) =>
      stampRequestOutcome(r, requestWas, observedAt, 'observation'),
    );
  }
  for (const p of participants) {
    const known = draft.participant(snapshot.id, p.id);
    const facts = {
      ...(p.name === undefined ? {} : { name: p.name }),
      ...(p.email === undefined ? {} : { email: p.email }),
      ...(p.role?.id === undefined ? {} : { roleId: p.role.id }),
      ...(p.role?.name === undefined ? {} : { roleName: p.role.name }),
      ...(p.role?.sequence === undefined ? {} : { sequence: p.role.sequence }),
    };
    const status = statusOf(p);
    const was = known?.status;
    if (known === undefined) {
      draft.addParticipant({
        signRequestId: snapshot.id,
        id: p.id,
        companyId,
        name: p.name ?? '',
        status: status ?? 'sent',
        viewCount: 0,
        downloadCount: 0,
        ...facts,
        ...NO_PARTICIPANT_TIMES,
      });
    } else {
      draft.updateParticipant(snapshot.id, p.id, (d) => {
        Object.assign(d, facts);
        d.companyId = companyId;
        if (status !== undefined) d.status = status;
      });
    }
    if (observedAt !== undefined) {
      draft.updateParticipant(snapshot.id, p.id, (d) =>
        stampParticipantOutcome(d, was, observedAt, 'observation'),
      );
    }
  }
  return 'applied';
};

/**
 * Loads a decoded sign-request representation (e.g. fetched from the service's
 * API) into the projections, so a stream can start from a snapshot. Returns the
 * new state, or the conflict with the state unchanged. Copies the collections
 * it writes to (O(records)); the engine's projector loads in O(participants).
 *
 * @example
 * ```ts
 * import { decodeSignRequest, initialState, loadSignRequest } from 'signfold';
 *
 * const loaded = decodeSignRequest({
 *   id: 1000, name: 'NDA for Ada', status: 'sent', formType: 'Form', savedTime: '2024-01-02 03:04:05',
 * }).andThen((fetched) => loadSignRequest(initialState(), fetched, { companyId: 1 }));
 * if (loaded.isOk()) console.log(loaded.value.signRequests.size);
 * // 1: events about request 1000 now continue from 'sent'
 * ```
 */
export const loadSignRequest = (
  state: ProjectionState,
  signRequest: SignRequest,
  origin?: RepresentationOrigin,
): Result<ProjectionState, Conflict> => {
  const copy = new WorkingCopy(state);
  const outcome = applyRepresentation(copy, signRequest, origin);
  return typeof outcome === 'object' ? err(outcome) : ok(copy.publish());
};
