import type {
  CompanyId,
  ParticipantId,
  RoleId,
  SignRequestId,
  TemplateId,
  UserId,
} from '../ids.js';
import type { EventType } from './event-members.js';
import type { ParticipantEvent, SignEvent, SignRequestEvent, TemplateEvent } from './sign-event.js';
import { isWireId } from './wire-id.js';

/**
 * The decoder's fast path for well-formed events: one function per event
 * shape, with named property reads and one object literal, so V8 keeps every
 * access monomorphic. It only says yes or "don't know" (`undefined`); any
 * doubt falls back to the table-driven decoder, which finds the precise error.
 * The compiler checks each literal against its event type, so this cannot
 * drift from the member table.
 */
type Wire = Readonly<Record<string, unknown>>;

// Every check is written out in the function of its shape: a helper shared by
// all shapes would see every hidden class and make its property reads megamorphic.

const isId = isWireId;
// `+ 0` turns -0 into 0: both are the same id.
const id = <T extends number>(v: number): T => (v + 0) as T;

/** The participant name under either spelling, if unambiguous. */
const participantNameOf = (misspelled: unknown, canonical: unknown): string | undefined => {
  const name =
    misspelled === undefined || misspelled === canonical
      ? canonical
      : canonical === undefined
        ? misspelled
        : undefined;
  return typeof name === 'string' ? name : undefined;
};

const templateEvent = (r: Wire, type: TemplateEvent['type']): TemplateEvent | undefined => {
  const { companyId, templateId, templateName, ownerId, ownerName } = r;
  if (!isId(companyId) || !isId(templateId) || !isId(ownerId)) return undefined;
  if (typeof templateName !== 'string' || typeof ownerName !== 'string') return undefined;
  if (
    r.signRequestId !== undefined ||
    r.signRequestName !== undefined ||
    r.senderId !== undefined ||
    r.senderName !== undefined ||
    r.participantId !== undefined ||
    r.participantName !== undefined ||
    r.partcipantName !== undefined ||
    r.roleId !== undefined ||
    r.roleName !== undefined
  ) {
    return undefined;
  }
  return {
    type,
    companyId: id<CompanyId>(companyId),
    templateId: id<TemplateId>(templateId),
    templateName,
    ownerId: id<UserId>(ownerId),
    ownerName,
  };
};

const signRequestEvent = (
  r: Wire,
  type: SignRequestEvent['type'],
): SignRequestEvent | undefined => {
  const { companyId, signRequestId, signRequestName, senderId, senderName, ownerId, ownerName } = r;
  if (!isId(companyId) || !isId(signRequestId) || !isId(senderId) || !isId(ownerId)) {
    return undefined;
  }
  if (
    typeof signRequestName !== 'string' ||
    typeof senderName !== 'string' ||
    typeof ownerName !== 'string'
  ) {
    return undefined;
  }
  if (
    r.participantId !== undefined ||
    r.participantName !== undefined ||
    r.partcipantName !== undefined ||
    r.roleId !== undefined ||
    r.roleName !== undefined
  ) {
    return undefined;
  }
  const { templateId, templateName } = r;
  if (type === 'sign-request-sent' || type === 'sign-request-completed') {
    if (!isId(templateId) || typeof templateName !== 'string') return undefined;
    return {
      type,
      companyId: id<CompanyId>(companyId),
      signRequestId: id<SignRequestId>(signRequestId),
      signRequestName,
      templateId: id<TemplateId>(templateId),
      templateName,
      senderId: id<UserId>(senderId),
      senderName,
      ownerId: id<UserId>(ownerId),
      ownerName,
    };
  }
  if (templateId !== undefined || templateName !== undefined) return undefined;
  return {
    type,
    companyId: id<CompanyId>(companyId),
    signRequestId: id<SignRequestId>(signRequestId),
    signRequestName,
    senderId: id<UserId>(senderId),
    senderName,
    ownerId: id<UserId>(ownerId),
    ownerName,
  };
};

const participantEvent = (
  r: Wire,
  type: ParticipantEvent['type'],
): ParticipantEvent | undefined => {
  const { companyId, signRequestId, signRequestName, participantId, roleId, roleName } = r;
  const { senderId, senderName, ownerId, ownerName } = r;
  if (!isId(companyId) || !isId(signRequestId) || !isId(participantId) || !isId(roleId)) {
    return undefined;
  }
  if (!isId(senderId) || !isId(ownerId)) return undefined;
  if (
    typeof signRequestName !== 'string' ||
    typeof roleName !== 'string' ||
    typeof senderName !== 'string' ||
    typeof ownerName !== 'string'
  ) {
    return undefined;
  }
  const participantName = participantNameOf(r.partcipantName, r.participantName);
  if (participantName === undefined) return undefined;
  const { templateId, templateName } = r;
  if (type === 'participant-sent' || type === 'participant-signed') {
    if (!isId(templateId) || typeof templateName !== 'string') return undefined;
    return {
      type,
      companyId: id<CompanyId>(companyId),
      signRequestId: id<SignRequestId>(signRequestId),
      signRequestName,
      templateId: id<TemplateId>(templateId),
      templateName,
      participantId: id<ParticipantId>(participantId),
      participantName,
      roleId: id<RoleId>(roleId),
      roleName,
      senderId: id<UserId>(senderId),
      senderName,
      ownerId: id<UserId>(ownerId),
      ownerName,
    };
  }
  if (templateId !== undefined || templateName !== undefined) return undefined;
  return {
    type,
    companyId: id<CompanyId>(companyId),
    signRequestId: id<SignRequestId>(signRequestId),
    signRequestName,
    participantId: id<ParticipantId>(participantId),
    participantName,
    roleId: id<RoleId>(roleId),
    roleName,
    senderId: id<UserId>(senderId),
    senderName,
    ownerId: id<UserId>(ownerId),
    ownerName,
  };
};

/** Decodes a well-formed event of a known type, or returns `undefined` to defer to the full decoder. */
export const decodeWellFormed = (r: Wire, type: EventType): SignEvent | undefined => {
  switch (type) {
    case 'template-activated':
    case 'template-inactivated':
    case 'template-deleted':
      return templateEvent(r, type);
    case 'sign-request-sent':
    case 'sign-request-completed':
    case 'sign-request-declined':
    case 'sign-request-deleted':
      return signRequestEvent(r, type);
    case 'participant-sent':
    case 'participant-viewed':
    case 'participant-downloaded':
    case 'participant-signed':
    case 'participant-declined':
      return participantEvent(r, type);
  }
};
