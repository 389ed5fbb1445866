import type { TemplateEvent } from '../events/sign-event.js';
import { type Conflict, companyMismatch, conflict, templateTarget } from './conflict.js';
import type { Outcome, ProjectionDraft } from './projection-draft.js';
import type { TemplateStatus } from './records.js';
import { templateMove } from './status-rules.js';

const TARGET: Readonly<Record<TemplateEvent['type'], TemplateStatus>> = {
  'template-activated': 'active',
  'template-inactivated': 'inactive',
  'template-deleted': 'deleted',
};

/**
 * `active ⇄ inactive`, `deleted` final. First sight creates the template in
 * the event's status; a repeated delete is a no-op, anything else after
 * deletion conflicts.
 */
export const applyTemplateEvent = (
  draft: ProjectionDraft,
  event: TemplateEvent,
): Outcome | Conflict => {
  const status = TARGET[event.type];
  const current = draft.template(event.templateId);
  if (current === undefined) {
    draft.addTemplate({
      id: event.templateId,
      companyId: event.companyId,
      name: event.templateName,
      ownerId: event.ownerId,
      ownerName: event.ownerName,
      status,
    });
    return 'applied';
  }
  const foreign = companyMismatch(current, templateTarget, event.companyId, event.type);
  if (foreign !== undefined) return foreign;
  const move = templateMove(current.status, status);
  if (move === 'refused') return conflict(templateTarget(current), { kind: 'deleted' }, event.type);
  // A deleted template takes no new names: a repeated delete is a no-op, whatever it says.
  if (current.status === 'deleted') return 'no-op';
  if (
    move === 'same' &&
    current.name === event.templateName &&
    current.ownerId === event.ownerId &&
    current.ownerName === event.ownerName
  ) {
    return 'no-op';
  }
  draft.updateTemplate(current.id, (t) => {
    t.status = status;
    t.name = event.templateName;
    t.ownerId = event.ownerId;
    t.ownerName = event.ownerName;
  });
  return 'applied';
};
