import type { SignRequestEvent, SignRequestSent } from '../events/sign-event.js';
import { type Conflict, conflict, signRequestTarget, templateTarget } from './conflict.js';
import type { Outcome, ProjectionDraft } from './projection-draft.js';
import type { SignRequestStatus } from './records.js';
import {
  checkSignRequestReferences,
  identityChanges,
  signRequestFromEvent,
  writeIdentity,
} from './sign-request-identity.js';
import { signRequestMove } from './status-rules.js';

const TARGET: Readonly<
  Record<Exclude<SignRequestEvent['type'], 'sign-request-deleted'>, SignRequestStatus>
> = {
  'sign-request-sent': 'sent',
  'sign-request-completed': 'completed',
  'sign-request-declined': 'declined',
};

/** A request may not be sent from a template known to be deleted. */
const checkTemplateAlive = (
  draft: ProjectionDraft,
  event: SignRequestSent,
): Conflict | undefined => {
  const template = draft.template(event.templateId);
  // Another company's template says nothing about this company's requests.
  if (template?.status !== 'deleted' || template.companyId !== event.companyId) return undefined;
  return conflict(
    templateTarget(template),
    { kind: 'deleted' },
    event.type,
    `sign request ${event.signRequestId} names it`,
  );
};

/**
 * Sign-request events. Forward moves apply (even skipping a step); moving back
 * or between the final statuses conflicts; after `sign-request-deleted`
 * everything but a repeated delete conflicts. First sight creates the request
 * (a first-seen delete records status `draft`: nothing else is known).
 */
export const applySignRequestEvent = (
  draft: ProjectionDraft,
  event: SignRequestEvent,
): Outcome | Conflict => {
  const current = draft.signRequest(event.signRequestId);
  if (current === undefined) {
    if (event.type === 'sign-request-sent') {
      const dead = checkTemplateAlive(draft, event);
      if (dead !== undefined) return dead;
    }
    draft.addSignRequest(
      event.type === 'sign-request-deleted'
        ? signRequestFromEvent(event, 'draft', true)
        : signRequestFromEvent(event, TARGET[event.type], false),
    );
    return 'applied';
  }
  const references = checkSignRequestReferences(current, event);
  if (references !== undefined) return references;
  if (current.deleted) {
    return event.type === 'sign-request-deleted'
      ? 'no-op'
      : conflict(signRequestTarget(current), { kind: 'deleted' }, event.type);
  }
  if (event.type === 'sign-request-deleted') {
    // In place, not through a recipe: no closure per event (see `writableSignRequest`).
    const r = draft.writableSignRequest(current.id);
    if (r !== undefined) {
      writeIdentity(r, event);
      r.deleted = true;
    }
    return 'applied';
  }
  const status = TARGET[event.type];
  const move = signRequestMove(current.status, status);
  const renamed = identityChanges(current, event);
  if (move === 'same' && !renamed) return 'no-op';
  if (move === 'refused') {
    return conflict(
      signRequestTarget(current),
      { kind: 'invalid-transition' },
      event.type,
      `${current.status} → ${status}`,
    );
  }
  if (event.type === 'sign-request-sent') {
    const dead = checkTemplateAlive(draft, event);
    if (dead !== undefined) return dead;
  }
  const r = draft.writableSignRequest(current.id);
  if (r !== undefined) {
    writeIdentity(r, event);
    r.status = status;
  }
  return 'applied';
};
