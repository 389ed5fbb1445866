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
  const foreign = companyMismatch(current, signRequestTarget, event.companyId, event.type);
  if (foreign !== undefined) return foreign;
  if ('templateId' in event && current.templateId !== undefined) {
    if (current.templateId !== event.templateId) {
      return conflict(
        signRequestTarget(current),
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

/**
 * Names are the latest seen; company and template are adopted when not yet known.
 * A member is assigned only when it differs: the result is the same, and a
 * long-lived record does not start pointing at the event's fresh strings
 * (which would keep them alive and make the garbage collector promote them).
 */
export const writeIdentity = (r: Draft<SignRequestView>, event: EventAboutSignRequest): void => {
  if (r.companyId !== event.companyId) r.companyId = event.companyId;
  if (r.name !== event.signRequestName) r.name = event.signRequestName;
  if (r.ownerId !== event.ownerId) r.ownerId = event.ownerId;
  if (r.ownerName !== event.ownerName) r.ownerName = event.ownerName;
  if (r.senderId !== event.senderId) r.senderId = event.senderId;
  if (r.senderName !== event.senderName) r.senderName = event.senderName;
  if ('templateId' in event) {
    if (r.templateId !== event.templateId) r.templateId = event.templateId;
    if (r.templateName !== event.templateName) r.templateName = event.templateName;
  }
};

/**
 * A new sign-request record built from an event. Its times are members of the
 * literal, not a spread of `NO_SIGN_REQUEST_TIMES`: V8 sizes an object for the
 * members its literal names, so spread members would live in a second,
 * out-of-object array (one more object per record to allocate, copy and
 * reach). The record type requires every time, so none can be left out.
 */
export const signRequestFromEvent = (
  event: EventAboutSignRequest,
  status: SignRequestView['status'],
  deleted: boolean,
): SignRequestView =>
  // Stamped by `applyEvent` once the event is applied (event-times.ts).
  'templateId' in event
    ? {
        id: event.signRequestId,
        companyId: event.companyId,
        name: event.signRequestName,
        status,
        deleted,
        ownerId: event.ownerId,
        ownerName: event.ownerName,
        senderId: event.senderId,
        senderName: event.senderName,
        templateId: event.templateId,
        templateName: event.templateName,
        sentAt: null,
        completedAt: null,
        declinedAt: null,
        deletedAt: null,
        outcomeFrom: null,
        lastEventAt: null,
      }
    : {
        id: event.signRequestId,
        companyId: event.companyId,
        name: event.signRequestName,
        status,
        deleted,
        ownerId: event.ownerId,
        ownerName: event.ownerName,
        senderId: event.senderId,
        senderName: event.senderName,
        sentAt: null,
        completedAt: null,
        declinedAt: null,
        deletedAt: null,
        outcomeFrom: null,
        lastEventAt: null,
      };
