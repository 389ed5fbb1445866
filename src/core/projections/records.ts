import type {
  CompanyId,
  ParticipantId,
  RoleId,
  SignRequestId,
  TemplateId,
  UserId,
} from '../ids.js';
import type { Field, FormType, SavedTime } from '../sign-request/sign-request.js';

/** Template lifecycle: `active ⇄ inactive`, `deleted` is final. */
export type TemplateStatus = 'active' | 'inactive' | 'deleted';
/** Sign-request lifecycle: `draft < sent < completed | declined` (both final). */
export type SignRequestStatus = 'draft' | 'sent' | 'completed' | 'declined';
/** Participant lifecycle: `sent < viewed < signed | declined` (both final). */
export type ParticipantStatus = 'sent' | 'viewed' | 'signed' | 'declined';

/**
 * What set a view's outcome time (`completedAt` / `declinedAt`, or a
 * participant's `signedAt` / `declinedAt`): the delivered event that moved
 * it there (its `receivedAt`), or an observation that repaired a lost
 * delivery (its `fetchedAt`: when the service was seen to report the
 * outcome, so no earlier than the outcome itself).
 */
export type OutcomeSource = 'event' | 'observation';

/** What the projection knows of a template. */
export interface TemplateView {
  readonly id: TemplateId;
  readonly companyId: CompanyId;
  readonly name: string;
  readonly ownerId: UserId;
  readonly ownerName: string;
  readonly status: TemplateStatus;
}

/** What the projection knows of a sign request. */
export interface SignRequestView {
  readonly id: SignRequestId;
  /**
   * `null` only for a request loaded from an API representation without an
   * origin company: the first event that touches it sets the company.
   */
  readonly companyId: CompanyId | null;
  readonly name: string;
  readonly status: SignRequestStatus;
  /** Set by `sign-request-deleted`; `status` keeps the last status before deletion. */
  readonly deleted: boolean;
  readonly ownerId?: UserId;
  readonly ownerName?: string;
  readonly senderId?: UserId;
  readonly senderName?: string;
  readonly templateId?: TemplateId;
  readonly templateName?: string;
  /** From a loaded API representation only. */
  readonly formType?: FormType;
  /** From a loaded API representation only (zone-less, never converted). */
  readonly savedTime?: SavedTime;
  /** From a loaded API representation only. */
  readonly fields?: readonly Field[];
  /**
   * The `receivedAt` (ISO 8601) of the event that moved the request to
   * `sent`; `null` when none carried a time (a bare line, an API load).
   */
  readonly sentAt: string | null;
  /** When the request became `completed` (see {@link outcomeFrom}); `null` when not completed or no time was known. */
  readonly completedAt: string | null;
  /** When the request became `declined` (see {@link outcomeFrom}); `null` when not declined or no time was known. */
  readonly declinedAt: string | null;
  /** The `receivedAt` of the `sign-request-deleted` that deleted it; `null` when not deleted or it carried none. */
  readonly deletedAt: string | null;
  /** What set `completedAt` or `declinedAt`; `null` while neither is set. */
  readonly outcomeFrom: OutcomeSource | null;
  /** The `receivedAt` of the last event applied to the request or one of its participants; `null` when none carried a time. */
  readonly lastEventAt: string | null;
}

/** What the projection knows of one participant of one sign request. */
export interface ParticipantView {
  readonly signRequestId: SignRequestId;
  readonly id: ParticipantId;
  readonly companyId: CompanyId | null;
  readonly name: string;
  readonly status: ParticipantStatus;
  /** Deliveries of `participant-viewed` (at-least-once: deduplicate with delivery ids in the log). */
  readonly viewCount: number;
  /** Deliveries of `participant-downloaded`. */
  readonly downloadCount: number;
  readonly roleId?: RoleId;
  readonly roleName?: string;
  /** Signing order of the role (from a loaded representation). */
  readonly sequence?: number;
  /** From a loaded representation. */
  readonly email?: string;
  /** The `receivedAt` (ISO 8601) of the `participant-sent` that created the participant; `null` when it carried none. */
  readonly sentAt: string | null;
  /** The `receivedAt` of the `participant-viewed` that moved the participant to `viewed`; `null` when it carried none. */
  readonly viewedAt: string | null;
  /** When the participant became `signed` (see {@link outcomeFrom}); `null` when not signed or no time was known. */
  readonly signedAt: string | null;
  /** When the participant became `declined` (see {@link outcomeFrom}); `null` when not declined or no time was known. */
  readonly declinedAt: string | null;
  /** What set `signedAt` or `declinedAt`; `null` while neither is set. */
  readonly outcomeFrom: OutcomeSource | null;
  /** The `receivedAt` of the last event applied to the participant; `null` when none carried a time. */
  readonly lastEventAt: string | null;
}
