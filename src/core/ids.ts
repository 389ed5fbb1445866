/**
 * Branded identifiers. All ids are safe integers on the wire; the brand keeps a
 * participant id from being passed where a sign-request id is expected.
 */
declare const brand: unique symbol;

/** A number tagged with the kind of record it identifies. */
export type Id<Kind extends string> = number & { readonly [brand]: Kind };

/** A company (tenant) identifier. */
export type CompanyId = Id<'Company'>;
/** A template identifier. */
export type TemplateId = Id<'Template'>;
/** A sign-request identifier. */
export type SignRequestId = Id<'SignRequest'>;
/** A participant identifier (unique within its sign request). */
export type ParticipantId = Id<'Participant'>;
/** A role identifier. */
export type RoleId = Id<'Role'>;
/** Owners and senders are users of the service. */
export type UserId = Id<'User'>;

/** Tags a trusted number as a company id (no validation: decode untrusted input instead). */
export const companyId = (n: number): CompanyId => n as CompanyId;
/** Tags a trusted number as a template id. */
export const templateId = (n: number): TemplateId => n as TemplateId;
/** Tags a trusted number as a sign-request id. */
export const signRequestId = (n: number): SignRequestId => n as SignRequestId;
/** Tags a trusted number as a participant id. */
export const participantId = (n: number): ParticipantId => n as ParticipantId;
/** Tags a trusted number as a role id. */
export const roleId = (n: number): RoleId => n as RoleId;
/** Tags a trusted number as a user (owner or sender) id. */
export const userId = (n: number): UserId => n as UserId;
