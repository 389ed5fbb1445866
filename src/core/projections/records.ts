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
  /** The `receivedAt` of the last event applied to the participant; `null` when none carried a time. */
  readonly lastEventAt: string | null;
}
