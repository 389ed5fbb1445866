import type { ParticipantEvent } from '../events/sign-event.js';
import {
  type Conflict,
  companyMismatch,
  conflict,
  participantTarget,
  signRequestTarget,
} from './conflict.js';
import type { Outcome, ProjectionDraft } from './projection-draft.js';
import type { ParticipantStatus, ParticipantView } from './records.js';
import {
  checkSignRequestReferences,
  identityChanges,
  signRequestFromEvent,
  writeIdentity,
} from './sign-request-identity.js';
import { allowedOnFinalRequest, nextParticipantStatus } from './status-rules.js';

const checkParticipantReferences = (
  current: ParticipantView,
  event: ParticipantEvent,
): Conflict | undefined => {
  const foreign = companyMismatch(current, participantTarget, event.companyId, event.type);
  if (foreign !== undefined) return foreign;
  if (current.roleId !== undefined && current.roleId !== event.roleId) {
    return conflict(
      participantTarget(current),
      {
        kind: 'reference-mismatch',
        reference: 'roleId',
        expected: current.roleId,
        received: event.roleId,
      },
      event.type,
    );
  }
  return undefined;
};

const participantChanges = (
  current: ParticipantView,
  event: ParticipantEvent,
  status: ParticipantStatus,
): boolean =>
  current.status !== status ||
  current.companyId === null ||
  current.name !== event.participantName ||
  current.roleId !== event.roleId ||
  current.roleName !== event.roleName ||
  event.type === 'participant-viewed' ||
  event.type === 'participant-downloaded';

/**
 * Participant events. They imply the request was sent (a draft becomes sent,
 * an unknown request is created as sent). Checks run in a fixed order:
 * isolation and references, deletion, "changes nothing" (a no-op), then the
 * lifecycles of the request and of the participant.
 */
export const applyParticipantEvent = (
  draft: ProjectionDraft,
  event: ParticipantEvent,
): Outcome | Conflict => {
  const request = draft.signRequest(event.signRequestId);
  const current = draft.participant(event.signRequestId, event.participantId);
  if (request !== undefined) {
    const references = checkSignRequestReferences(request, event);
    if (references !== undefined) return references;
  }
  if (current !== undefined) {
    const references = checkParticipantReferences(current, event);
    if (references !== undefined) return references;
  }
  if (request?.deleted === true) {
    return conflict(signRequestTarget(request), { kind: 'deleted' }, event.type);
  }
  const status = nextParticipantStatus(current?.status, event.type);
  const requestChanges =
    request === undefined || request.status === 'draft' || identityChanges(request, event);
  const changes =
    requestChanges ||
    current === undefined ||
    status === 'refused' ||
    participantChanges(current, event, status);
  if (!changes) return 'no-op';

  if (request !== undefined && !allowedOnFinalRequest(request, event.type)) {
    return conflict(
      signRequestTarget(request),
      { kind: 'invalid-transition' },
      event.type,
      `participant ${event.participantId}`,
    );
  }
  if (status === 'refused') {
    // `current` is defined: an unknown participant is never refused.
    const known = current as ParticipantView;
    return conflict(participantTarget(known), { kind: 'invalid-transition' }, event.type);
  }

  if (request === undefined) {
    draft.addSignRequest(signRequestFromEvent(event, 'sent', false));
  } else if (requestChanges) {
    draft.updateSignRequest(request.id, (r) => {
      writeIdentity(r, event);
      if (r.status === 'draft') r.status = 'sent';
    });
  }
  const viewed = event.type === 'participant-viewed' ? 1 : 0;
  const downloaded = event.type === 'participant-downloaded' ? 1 : 0;
  if (current === undefined) {
    draft.addParticipant({
      signRequestId: event.signRequestId,
      id: event.participantId,
      companyId: event.companyId,
      name: event.participantName,
      status,
      viewCount: viewed,
      downloadCount: downloaded,
      roleId: event.roleId,
      roleName: event.roleName,
      // Members of the literal, so they live in the object (see `signRequestFromEvent`).
      sentAt: null,
      viewedAt: null,
      signedAt: null,
      declinedAt: null,
      outcomeFrom: null,
      lastEventAt: null,
    });
  } else {
    // Members are assigned only when they differ (see `writeIdentity` for why).
    draft.updateParticipant(event.signRequestId, event.participantId, (p) => {
      if (p.companyId !== event.companyId) p.companyId = event.companyId;
      if (p.name !== event.participantName) p.name = event.participantName;
      if (p.status !== status) p.status = status;
      if (p.roleId !== event.roleId) p.roleId = event.roleId;
      if (p.roleName !== event.roleName) p.roleName = event.roleName;
      if (viewed !== 0) p.viewCount += viewed;
      if (downloaded !== 0) p.downloadCount += downloaded;
    });
  }
  return 'applied';
};
