/**
 * The single source of truth for the wire format (docs/service-interface.md): which members
 * each event type carries. The decoder, the encoder and the published JSON
 * Schemas are all derived from this table, so they cannot drift apart.
 */

/** The 12 event types, in the order of the table in docs/service-interface.md. */
export const EVENT_TYPES = [
  'template-activated',
  'template-inactivated',
  'template-deleted',
  'sign-request-sent',
  'sign-request-completed',
  'sign-request-declined',
  'sign-request-deleted',
  'participant-sent',
  'participant-viewed',
  'participant-downloaded',
  'participant-signed',
  'participant-declined',
] as const;

/** The `type` member of an event. */
export type EventType = (typeof EVENT_TYPES)[number];

/** Value kinds a member can have. Ids are safe integers. */
export type MemberKind = 'id' | 'string';

/** Every event member of docs/service-interface.md (except `type`), canonical spelling. */
export const MEMBER_KINDS = {
  companyId: 'id',
  ownerId: 'id',
  ownerName: 'string',
  templateId: 'id',
  templateName: 'string',
  senderId: 'id',
  senderName: 'string',
  signRequestId: 'id',
  signRequestName: 'string',
  participantId: 'id',
  participantName: 'string',
  roleId: 'id',
  roleName: 'string',
} as const satisfies Record<string, MemberKind>;

/** A canonical member name. */
export type MemberName = keyof typeof MEMBER_KINDS;

/** Wire spelling the service uses for the participant name (docs/service-interface.md). */
export const WIRE_PARTICIPANT_NAME = 'partcipantName';

// Spec §6.3 puts the company first and the owner last in every shape.
const COMPANY = ['companyId'] as const;
const OWNER = ['ownerId', 'ownerName'] as const;
const TEMPLATE = ['templateId', 'templateName'] as const;
const SIGN_REQUEST = ['signRequestId', 'signRequestName'] as const;
const SENDER = ['senderId', 'senderName'] as const;
const PARTICIPANT = ['participantId', 'participantName', 'roleId', 'roleName'] as const;

/**
 * Members each event type carries besides `type`, in the order of the event
 * shapes of docs/service-interface.md. All of them are required for that type;
 * every other known member is forbidden.
 */
export const EVENT_MEMBERS = {
  'template-activated': [...COMPANY, ...TEMPLATE, ...OWNER],
  'template-inactivated': [...COMPANY, ...TEMPLATE, ...OWNER],
  'template-deleted': [...COMPANY, ...TEMPLATE, ...OWNER],
  'sign-request-sent': [...COMPANY, ...SIGN_REQUEST, ...TEMPLATE, ...SENDER, ...OWNER],
  'sign-request-completed': [...COMPANY, ...SIGN_REQUEST, ...TEMPLATE, ...SENDER, ...OWNER],
  'sign-request-declined': [...COMPANY, ...SIGN_REQUEST, ...SENDER, ...OWNER],
  'sign-request-deleted': [...COMPANY, ...SIGN_REQUEST, ...SENDER, ...OWNER],
  'participant-sent': [
    ...COMPANY,
    ...SIGN_REQUEST,
    ...TEMPLATE,
    ...PARTICIPANT,
    ...SENDER,
    ...OWNER,
  ],
  'participant-viewed': [...COMPANY, ...SIGN_REQUEST, ...PARTICIPANT, ...SENDER, ...OWNER],
  'participant-downloaded': [...COMPANY, ...SIGN_REQUEST, ...PARTICIPANT, ...SENDER, ...OWNER],
  'participant-signed': [
    ...COMPANY,
    ...SIGN_REQUEST,
    ...TEMPLATE,
    ...PARTICIPANT,
    ...SENDER,
    ...OWNER,
  ],
  'participant-declined': [...COMPANY, ...SIGN_REQUEST, ...PARTICIPANT, ...SENDER, ...OWNER],
} as const satisfies Record<EventType, readonly MemberName[]>;

/** Whether a string is one of the 12 event types. */
export const isEventType = (value: string): value is EventType =>
  Object.hasOwn(EVENT_MEMBERS, value);
