import type {
  CompanyId,
  ParticipantId,
  RoleId,
  SignRequestId,
  TemplateId,
  UserId,
} from '../ids.js';
import type { EVENT_MEMBERS, EventType } from './event-members.js';

/** The TypeScript type of each member; a member added to the table must be typed here. */
interface MemberTypes {
  readonly companyId: CompanyId;
  readonly ownerId: UserId;
  readonly ownerName: string;
  readonly templateId: TemplateId;
  readonly templateName: string;
  readonly senderId: UserId;
  readonly senderName: string;
  readonly signRequestId: SignRequestId;
  readonly signRequestName: string;
  readonly participantId: ParticipantId;
  readonly participantName: string;
  readonly roleId: RoleId;
  readonly roleName: string;
}

/** One event variant: its `type` plus exactly the members table 6.2 lists for it. */
export type EventOf<T extends EventType> = T extends EventType
  ? { readonly type: T } & { readonly [M in (typeof EVENT_MEMBERS)[T][number]]: MemberTypes[M] }
  : never;

/** A decoded, validated event: a discriminated union of the 12 types on `type`. */
export type SignEvent = EventOf<EventType>;

/** The `template-activated` event. */
export type TemplateActivated = EventOf<'template-activated'>;
/** The `template-inactivated` event. */
export type TemplateInactivated = EventOf<'template-inactivated'>;
/** The `template-deleted` event. */
export type TemplateDeleted = EventOf<'template-deleted'>;
/** The `sign-request-sent` event. */
export type SignRequestSent = EventOf<'sign-request-sent'>;
/** The `sign-request-completed` event. */
export type SignRequestCompleted = EventOf<'sign-request-completed'>;
/** The `sign-request-declined` event. */
export type SignRequestDeclined = EventOf<'sign-request-declined'>;
/** The `sign-request-deleted` event. */
export type SignRequestDeleted = EventOf<'sign-request-deleted'>;
/** The `participant-sent` event. */
export type ParticipantSent = EventOf<'participant-sent'>;
/** The `participant-viewed` event. */
export type ParticipantViewed = EventOf<'participant-viewed'>;
/** The `participant-downloaded` event. */
export type ParticipantDownloaded = EventOf<'participant-downloaded'>;
/** The `participant-signed` event. */
export type ParticipantSigned = EventOf<'participant-signed'>;
/** The `participant-declined` event. */
export type ParticipantDeclined = EventOf<'participant-declined'>;

/** Events about a template alone. */
export type TemplateEvent = TemplateActivated | TemplateInactivated | TemplateDeleted;
/** Events about a sign request as a whole. */
export type SignRequestEvent =
  | SignRequestSent
  | SignRequestCompleted
  | SignRequestDeclined
  | SignRequestDeleted;
/** Events about one participant of a sign request. */
export type ParticipantEvent =
  | ParticipantSent
  | ParticipantViewed
  | ParticipantDownloaded
  | ParticipantSigned
  | ParticipantDeclined;
