import type { EventType } from '../events/event-members.js';
import type { CompanyId, ParticipantId, SignRequestId, TemplateId } from '../ids.js';
import type {
  ParticipantStatus,
  ParticipantView,
  SignRequestStatus,
  SignRequestView,
  TemplateStatus,
  TemplateView,
} from './records.js';

/** Which record an event contradicted. */
export type ConflictTarget =
  | {
      readonly entity: 'template';
      readonly id: TemplateId;
      readonly currentStatus: TemplateStatus;
    }
  | {
      readonly entity: 'sign-request';
      readonly id: SignRequestId;
      readonly currentStatus: SignRequestStatus;
    }
  | {
      readonly entity: 'participant';
      readonly id: ParticipantId;
      readonly signRequestId: SignRequestId;
      readonly currentStatus: ParticipantStatus;
    };

/** Why the event was refused. */
export type ConflictReason =
  | { readonly kind: 'invalid-transition' }
  | { readonly kind: 'deleted' }
  | {
      readonly kind: 'company-mismatch';
      readonly recordCompanyId: CompanyId;
      readonly eventCompanyId: CompanyId;
    }
  | {
      readonly kind: 'reference-mismatch';
      readonly reference: 'templateId' | 'roleId';
      readonly expected: number;
      readonly received: number;
    };

/**
 * An event that contradicts what the projection knows. Returned as a `Result`
 * error; the state it was checked against is left exactly as it was.
 */
export type Conflict = ConflictTarget &
  ConflictReason & {
    /** The event type, or `load-sign-request` for {@link loadSignRequest}. */
    readonly eventType: EventType | 'load-sign-request';
    readonly message: string;
  };

/** The kinds of conflict. */
export type ConflictKind = Conflict['kind'];

/** A conflict found by `fold`, with the index of its event in the input. */
export type IndexedConflict = Conflict & { readonly index: number };

const describeTarget = (target: ConflictTarget): string =>
  target.entity === 'participant'
    ? `participant ${target.id} of sign request ${target.signRequestId} (${target.currentStatus})`
    : `${target.entity} ${target.id} (${target.currentStatus})`;

const describeReason = (reason: ConflictReason): string => {
  switch (reason.kind) {
    case 'invalid-transition':
      return 'would move it to a status its lifecycle does not allow';
    case 'deleted':
      return 'was deleted';
    case 'company-mismatch':
      return `belongs to company ${reason.recordCompanyId}, not ${reason.eventCompanyId}`;
    case 'reference-mismatch':
      return `has ${reason.reference} ${reason.expected}, event says ${reason.received}`;
  }
};

/** Builds a {@link Conflict} with a readable message. */
export const conflict = (
  target: ConflictTarget,
  reason: ConflictReason,
  eventType: Conflict['eventType'],
  detail?: string,
): Conflict => ({
  ...target,
  ...reason,
  eventType,
  message: `${eventType} conflicts with ${describeTarget(target)}: ${
    reason.kind === 'deleted' ? `it ${describeReason(reason)}` : describeReason(reason)
  }${detail === undefined ? '' : ` (${detail})`}`,
});

/** The conflict target for a template record. */
export const templateTarget = (t: TemplateView): ConflictTarget => ({
  entity: 'template',
  id: t.id,
  currentStatus: t.status,
});

/** The conflict target for a sign-request record. */
export const signRequestTarget = (r: SignRequestView): ConflictTarget => ({
  entity: 'sign-request',
  id: r.id,
  currentStatus: r.status,
});

/** The conflict target for a participant record. */
export const participantTarget = (p: ParticipantView): ConflictTarget => ({
  entity: 'participant',
  id: p.id,
  signRequestId: p.signRequestId,
  currentStatus: p.status,
});

/**
 * Tenant isolation: a record never accepts another company's event. A record
 * whose company is not known yet (`null`, loaded without an origin) accepts it.
 * The target is built (by `targetOf`) only for a conflict: this check runs on
 * every event, and most events conflict with nothing.
 */
export const companyMismatch = <R extends { readonly companyId: CompanyId | null }>(
  record: R,
  targetOf: (record: R) => ConflictTarget,
  eventCompanyId: CompanyId,
  eventType: Conflict['eventType'],
): Conflict | undefined => {
  const recordCompanyId = record.companyId;
  return recordCompanyId === null || recordCompanyId === eventCompanyId
    ? undefined
    : conflict(
        targetOf(record),
        { kind: 'company-mismatch', recordCompanyId, eventCompanyId },
        eventType,
      );
};
