/**
 * The sign-request representation (docs/service-interface.md), as held after decoding. Members
 * the service interface marks required are required; all members of Participant, Role,
 * FieldData and Field are optional because the service interface does not say which are
 * required. Absent members are omitted, never `undefined`.
 */
import type { Id, ParticipantId, RoleId, SignRequestId } from '../ids.js';
import type { ApiParticipantStatus } from './participant-status.js';
import type { SavedTime } from './saved-time.js';

// The type of `savedTime` belongs with the representation as well as with its parser.
export type { SavedTime } from './saved-time.js';

/** Sign request status values (docs/service-interface.md), canonical lower case. */
export const SIGN_REQUEST_STATUSES = ['draft', 'sent', 'completed', 'declined'] as const;

/** Sign request status, held in lower case whatever case was received. */
export type ApiSignRequestStatus = (typeof SIGN_REQUEST_STATUSES)[number];

/** `formType` values; letter case is significant (docs/service-interface.md). */
export const FORM_TYPES = ['Form', 'Document'] as const;

/** Type of a sign request. */
export type FormType = (typeof FORM_TYPES)[number];

/** Identifier of a Field; referenced by `FieldData.fieldId`. */
export type FieldId = Id<'Field'>;

/** Identifier of one FieldData entry. */
export type FieldDataId = Id<'FieldData'>;

/** Tags a trusted number as a field id (no validation: decode untrusted input instead). */
export const fieldId = (n: number): FieldId => n as FieldId;

/** Tags a trusted number as a field-data id (no validation). */
export const fieldDataId = (n: number): FieldDataId => n as FieldDataId;

/** Role held by a participant (docs/service-interface.md). */
export interface Role {
  readonly id?: RoleId;
  readonly name?: string;
  /** Position in the signing order; a non-negative integer. */
  readonly sequence?: number;
}

/** Data a participant entered into a field (docs/service-interface.md). */
export interface FieldData {
  readonly id?: FieldDataId;
  /** The `id` of an element of the sign request's `fields`. */
  readonly fieldId?: FieldId;
  /** Canonical base64 text, kept encoded. */
  readonly imageContent?: string;
  /** Media type such as `image/png`, case kept as received. */
  readonly imageMimetype?: string;
}

/** A participant of a sign request (docs/service-interface.md). */
export interface Participant {
  readonly id?: ParticipantId;
  readonly name?: string;
  readonly email?: string;
  readonly status?: ApiParticipantStatus;
  readonly role?: Role;
  readonly fieldData?: readonly FieldData[];
}

/** A place on the sign request that a role fills in (docs/service-interface.md). */
export interface Field {
  readonly id?: FieldId;
  /** The `role.id` of a participant. */
  readonly roleId?: RoleId;
  readonly required?: boolean;
  readonly isMasked?: boolean;
  /** Field type; only `signature` is published, so any string is kept. */
  readonly type?: string;
}

/** A decoded, validated sign request (docs/service-interface.md). */
export interface SignRequest {
  readonly id: SignRequestId;
  readonly name: string;
  readonly status: ApiSignRequestStatus;
  readonly formType: FormType;
  readonly savedTime: SavedTime;
  readonly participants?: readonly Participant[];
  readonly fields?: readonly Field[];
}
