import type { Draft } from 'immer';
import type { ParticipantEvent, SignRequestEvent } from '../events/sign-event.js';
import { type Conflict, companyMismatch, conflict, signRequestTarget } from './conflict.js';
import type { SignRequestView } from './records.js';

/** Events that carry a sign request's identity (its name, owner, sender, maybe template). */
export type EventAboutSignRequest = SignRequestEvent | ParticipantEvent;

/**
 * The isolation and reference checks every event about an existing sign
 * request passes first: same company (or none known yet), same template.
 */
export const checkSignRequestReferences = (
  current: SignRequestView,
  event: EventAboutSignRequest,
): Conflict | undefined => {
  const target = signRequestTarget(current);
  const foreign = companyMismatch(target, current.companyId, event.companyId, event.type);
  if (foreign !== undefined) return foreign;
  if ('templateId' in event && current.templateId !== undefined) {
    if (current.templateId !== event.templateId) {
      return conflict(
        target,
        {
          kind: 'reference-mismatch',
          reference: 'templateId',
          expected: current.templateId,
          received: event.templateId,
        },
        event.type,
      );
    }
  }
  return undefined;
};

/** Whether applying the event's names and references would change the record. */
export const identityChanges = (current: SignRequestView, event: EventAboutSignRequest): boolean =>
  current.companyId === null ||
  current.name !== event.signRequestName ||
  current.ownerId !== event.ownerId ||
  current.ownerName !== event.ownerName ||
  current.senderId !== event.senderId ||
  current.senderName !== event.senderName ||
  ('templateId' in event &&
    (current.templateId !== event.templateId || current.templateName !== event.templateName));

/** Names are the latest seen; company and template are adopted when not yet known. */
export const writeIdentity = (r: Draft<SignRequestView>, event: EventAboutSignRequest): void => {
  r.companyId = event.companyId;
  r.name = event.signRequestName;
  r.ownerId = event.ownerId;
  r.ownerName = event.ownerName;
  r.senderId = event.senderId;
  r.senderName = event.senderName;
  if ('templateId' in event) {
    r.templateId = event.templateId;
    r.templateName = event.templateName;
  }
};

/** A new sign-request record built from an event. */
export const signRequestFromEvent = (
  event: EventAboutSignRequest,
  status: SignRequestView['status'],
  deleted: boolean,
): SignRequestView => ({
  id: event.signRequestId,
  companyId: event.companyId,
  name: event.signRequestName,
  status,
  deleted,
  ownerId: event.ownerId,
  ownerName: event.ownerName,
  senderId: event.senderId,
  senderName: event.senderName,
  ...('templateId' in event
    ? { templateId: event.templateId, templateName: event.templateName }
    : {}),
});
