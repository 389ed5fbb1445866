/**
 * The service's commands: what a user of the e-signature service asks it to
 * do. The service interface (docs/service-interface.md) publishes no operations, only the
 * events they cause; these are the operations those events imply. Ids are
 * plain numbers, as a caller holds them; the events the decider emits carry
 * them branded, after the real decoder has checked them.
 */

/** A participant as the service sends a request to them: who, and in which role. */
export interface ParticipantFacts {
  readonly participantId: number;
  readonly participantName: string;
  readonly roleId: number;
  readonly roleName: string;
}

/** Creates a template; a new template is active (`template-activated`). */
export interface CreateTemplate {
  readonly type: 'create-template';
  readonly companyId: number;
  readonly templateId: number;
  readonly templateName: string;
  readonly ownerId: number;
  readonly ownerName: string;
}

/** Activates, inactivates or deletes a template the service holds. */
export interface ChangeTemplate {
  readonly type: 'activate-template' | 'inactivate-template' | 'delete-template';
  readonly templateId: number;
}

interface SendSignRequestBase {
  readonly type: 'send-sign-request';
  readonly companyId: number;
  readonly signRequestId: number;
  readonly signRequestName: string;
  readonly ownerId: number;
  readonly ownerName: string;
  readonly senderId: number;
  readonly senderName: string;
  readonly templateId: number;
  /** Sent with the request, in this order (`participant-sent` each): all of them, or the first in signing order. */
  readonly participants?: readonly ParticipantFacts[];
}

/**
 * Creates a sign request and sends it (`sign-request-sent`, then
 * `participant-sent` for each of `participants`). From a template (the
 * default): `templateId` names an active template of the same company, whose
 * name the events carry. Alone (`from: 'document'`): the request is a
 * one-off document; `templateId` and `templateName` are its own, which every
 * `sign-request-sent` carries (service interface §6.2), and no template is checked.
 */
export type SendSignRequest = SendSignRequestBase &
  ({ readonly from?: 'template' } | { readonly from: 'document'; readonly templateName: string });

/** Declines (cancels) or deletes a sign request. */
export interface ChangeSignRequest {
  readonly type: 'decline-sign-request' | 'delete-sign-request';
  readonly signRequestId: number;
}

/**
 * Sends a sent request to one more participant (`participant-sent`). `after`
 * lists the participants who must have signed first: those of lower
 * `role.sequence` when the request is signed in order, none when in parallel.
 */
export interface SendToParticipant {
  readonly type: 'send-to-participant';
  readonly signRequestId: number;
  readonly participant: ParticipantFacts;
  readonly after?: readonly number[];
}

/** A participant views, downloads or declines the request they were sent. */
export interface ParticipantAction {
  readonly type: 'view' | 'download' | 'decline';
  readonly signRequestId: number;
  readonly participantId: number;
}

/**
 * A participant signs (`participant-signed`). When every one of `signers` has
 * then signed, the request completes in the same decision
 * (`sign-request-completed` follows), as the service completes it on the last
 * signature. `signers` defaults to every participant the request was sent to;
 * a request signed in order lists them all, sent or not yet.
 */
export interface Sign {
  readonly type: 'sign';
  readonly signRequestId: number;
  readonly participantId: number;
  readonly signers?: readonly number[];
}

/** A command to the e-signature service, discriminated on `type`. */
export type Command =
  | CreateTemplate
  | ChangeTemplate
  | SendSignRequest
  | ChangeSignRequest
  | SendToParticipant
  | ParticipantAction
  | Sign;

/** The `type` of a command. */
export type CommandType = Command['type'];

/** Every command type. */
export const COMMAND_TYPES = [
  'create-template',
  'activate-template',
  'inactivate-template',
  'delete-template',
  'send-sign-request',
  'decline-sign-request',
  'delete-sign-request',
  'send-to-participant',
  'view',
  'download',
  'sign',
  'decline',
] as const satisfies readonly CommandType[];

/** Whether a value is shaped like a command (an object whose `type` is a command type). */
export const isCommand = (value: unknown): value is Command =>
  typeof value === 'object' &&
  value !== null &&
  (COMMAND_TYPES as readonly unknown[]).includes((value as { type?: unknown }).type);
