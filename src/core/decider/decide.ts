import { err, ok, type Result, safeTry } from 'neverthrow';
import { match, P } from 'ts-pattern';
import type { EventType } from '../events/event-members.js';
import type { SignEvent } from '../events/sign-event.js';
import {
  type ParticipantId,
  participantId,
  type SignRequestId,
  signRequestId,
  templateId,
} from '../ids.js';
import type { ProjectionState } from '../projections/projection-state.js';
import type { ParticipantView, SignRequestView } from '../projections/records.js';
import type {
  ChangeSignRequest,
  ChangeTemplate,
  Command,
  CommandType,
  CreateTemplate,
  ParticipantAction,
  ParticipantFacts,
  SendSignRequest,
  SendToParticipant,
  Sign,
} from './command.js';
import { emitEvent, type Facts } from './emit-event.js';
import { judge } from './judge.js';
import { type Rejection, rejection } from './rejection.js';

type Decision = Result<readonly SignEvent[], Rejection>;

/** The events of `types` from `facts`, or `invalid-command` naming the member the decoder refused. */
const emitAll = (
  command: CommandType,
  items: readonly { readonly type: EventType; readonly facts: Facts }[],
): Result<SignEvent[], Rejection> => {
  const events: SignEvent[] = [];
  for (const { type, facts } of items) {
    const emitted = emitEvent(type, facts);
    if (emitted.isErr()) return err(rejection('invalid-command', command, emitted.error));
    events.push(emitted.value);
  }
  return ok(events);
};

const TEMPLATE_EVENT = {
  'activate-template': 'template-activated',
  'inactivate-template': 'template-inactivated',
  'delete-template': 'template-deleted',
} as const;

const createTemplate = (state: ProjectionState, command: CreateTemplate): Decision => {
  if (state.templates.has(templateId(command.templateId))) {
    return err(rejection('already-exists', command.type, `template ${command.templateId} exists`));
  }
  return emitAll(command.type, [{ type: 'template-activated', facts: command }]).andThen((events) =>
    judge(state, command.type, events),
  );
};

const changeTemplate = (state: ProjectionState, command: ChangeTemplate): Decision => {
  const template = state.templates.get(templateId(command.templateId));
  if (template === undefined) {
    return err(rejection('unknown-template', command.type, `no template ${command.templateId}`));
  }
  const facts: Facts = {
    companyId: template.companyId,
    templateId: template.id,
    templateName: template.name,
    ownerId: template.ownerId,
    ownerName: template.ownerName,
  };
  return emitAll(command.type, [{ type: TEMPLATE_EVENT[command.type], facts }]).andThen((events) =>
    judge(state, command.type, events),
  );
};

const participantFacts = (p: ParticipantFacts): Facts => ({
  participantId: p.participantId,
  participantName: p.participantName,
  roleId: p.roleId,
  roleName: p.roleName,
});

const sendSignRequest = (state: ProjectionState, command: SendSignRequest): Decision =>
  safeTry(function* () {
    if (state.signRequests.has(signRequestId(command.signRequestId))) {
      return err(
        rejection('already-exists', command.type, `sign request ${command.signRequestId} exists`),
      );
    }
    const participants = command.participants ?? [];
    const ids = participants.map((p) => p.participantId);
    if (new Set(ids).size !== ids.length) {
      return err(rejection('invalid-command', command.type, 'a participant is listed twice'));
    }
    const templateName = yield* templateNameOf(state, command);
    const request: Facts = {
      companyId: command.companyId,
      signRequestId: command.signRequestId,
      signRequestName: command.signRequestName,
      templateId: command.templateId,
      templateName,
      senderId: command.senderId,
      senderName: command.senderName,
      ownerId: command.ownerId,
      ownerName: command.ownerName,
    };
    const events = yield* emitAll(command.type, [
      { type: 'sign-request-sent', facts: request },
      ...participants.map((p) => ({
        type: 'participant-sent' as const,
        facts: { ...request, ...participantFacts(p) },
      })),
    ]);
    return judge(state, command.type, events);
  });

/** The template name a request sent from a template carries; the template must be active. */
const templateNameOf = (
  state: ProjectionState,
  command: SendSignRequest,
): Result<string, Rejection> => {
  if (command.from === 'document') return ok(command.templateName);
  const template = state.templates.get(templateId(command.templateId));
  // Another company's template is none of this company's (tenant isolation).
  if (template === undefined || template.companyId !== command.companyId) {
    return err(
      rejection(
        'unknown-template',
        command.type,
        `company ${command.companyId} has no template ${command.templateId}`,
      ),
    );
  }
  // A deleted template is refused by the fold's rule (a `deleted` conflict naming the template).
  if (template.status === 'inactive') {
    return err(
      rejection('template-not-active', command.type, `template ${command.templateId} is inactive`),
    );
  }
  return ok(template.name);
};

/** The members every event about the request carries, from what the service holds of it. */
const requestFacts = (
  state: ProjectionState,
  command: CommandType,
  id: number,
): Result<{ readonly request: SignRequestView; readonly facts: Facts }, Rejection> => {
  const request = state.signRequests.get(signRequestId(id));
  if (request === undefined) {
    return err(rejection('unknown-sign-request', command, `no sign request ${id}`));
  }
  const { companyId, ownerId, ownerName, senderId, senderName, templateId, templateName } = request;
  if (
    companyId === null ||
    ownerId === undefined ||
    ownerName === undefined ||
    senderId === undefined ||
    senderName === undefined ||
    templateId === undefined ||
    templateName === undefined
  ) {
    return err(
      rejection(
        'unknown-sign-request',
        command,
        `sign request ${id} was not sent by the service: its company, owner, sender or template is not known`,
      ),
    );
  }
  return ok({
    request,
    facts: {
      companyId,
      signRequestId: request.id,
      signRequestName: request.name,
      templateId,
      templateName,
      senderId,
      senderName,
      ownerId,
      ownerName,
    },
  });
};

const changeSignRequest = (state: ProjectionState, command: ChangeSignRequest): Decision =>
  requestFacts(state, command.type, command.signRequestId)
    .andThen(({ facts }) =>
      emitAll(command.type, [
        {
          type:
            command.type === 'decline-sign-request'
              ? 'sign-request-declined'
              : 'sign-request-deleted',
          facts,
        },
      ]),
    )
    .andThen((events) => judge(state, command.type, events));

const participantsOf = (
  state: ProjectionState,
  id: SignRequestId,
): ReadonlyMap<ParticipantId, ParticipantView> => state.participants.get(id) ?? new Map();

const sendToParticipant = (state: ProjectionState, command: SendToParticipant): Decision =>
  safeTry(function* () {
    const { request, facts } = yield* requestFacts(state, command.type, command.signRequestId);
    const known = participantsOf(state, request.id);
    const { participantId: id } = command.participant;
    if (known.has(participantId(id))) {
      return err(
        rejection(
          'already-exists',
          command.type,
          `participant ${id} was sent sign request ${request.id}`,
        ),
      );
    }
    const waitingFor = (command.after ?? []).filter(
      (before) => known.get(participantId(before))?.status !== 'signed',
    );
    if (waitingFor.length > 0) {
      return err({
        kind: 'signing-order' as const,
        command: command.type,
        message: `${command.type} refused: participant ${id} comes after ${waitingFor.join(', ')}, who ${waitingFor.length === 1 ? 'has' : 'have'} not signed`,
        waitingFor,
      });
    }
    const events = yield* emitAll(command.type, [
      {
        type: 'participant-sent',
        facts: { ...facts, ...participantFacts(command.participant) },
      },
    ]);
    return judge(state, command.type, events);
  });

/** The request's facts and the participant's, for a command of a participant sent the request. */
const participantOf = (
  state: ProjectionState,
  command: ParticipantAction | Sign,
): Result<
  { readonly request: SignRequestView; readonly facts: Facts; readonly known: ParticipantView },
  Rejection
> =>
  requestFacts(state, command.type, command.signRequestId).andThen(({ request, facts }) => {
    const known = participantsOf(state, request.id).get(participantId(command.participantId));
    if (known === undefined || known.roleId === undefined || known.roleName === undefined) {
      return err(
        rejection(
          'unknown-participant',
          command.type,
          `participant ${command.participantId} was not sent sign request ${request.id}`,
        ),
      );
    }
    return ok({
      request,
      known,
      facts: {
        ...facts,
        participantId: known.id,
        participantName: known.name,
        roleId: known.roleId,
        roleName: known.roleName,
      },
    });
  });

const PARTICIPANT_EVENT = {
  view: 'participant-viewed',
  download: 'participant-downloaded',
  decline: 'participant-declined',
} as const;

const participantAction = (state: ProjectionState, command: ParticipantAction): Decision =>
  participantOf(state, command)
    .andThen(({ request, facts }) =>
      emitAll(command.type, [
        { type: PARTICIPANT_EVENT[command.type], facts },
        // One decline declines the request it was sent.
        ...(command.type === 'decline' && request.status === 'sent'
          ? [{ type: 'sign-request-declined' as const, facts }]
          : []),
      ]),
    )
    .andThen((events) => judge(state, command.type, events));

const sign = (state: ProjectionState, command: Sign): Decision =>
  participantOf(state, command)
    .andThen(({ request, facts, known }) => {
      const participants = participantsOf(state, request.id);
      const signers = command.signers ?? [...participants.keys()];
      const complete =
        request.status === 'sent' &&
        signers.every(
          (id) => id === known.id || participants.get(participantId(id))?.status === 'signed',
        );
      return emitAll(command.type, [
        { type: 'participant-signed', facts },
        ...(complete ? [{ type: 'sign-request-completed' as const, facts }] : []),
      ]);
    })
    .andThen((events) => judge(state, command.type, events));

/**
 * Decides a command against the state the service holds (the projection its
 * own events fold to): the events it emits, in order, or why it refuses.
 * What may change is judged by the fold's rules themselves (see `judge`):
 * the decider adds only what the service knows and a receiver cannot, such as
 * which participants were sent a request and in what order they sign.
 *
 * @example
 * ```ts
 * import { decide, initialState } from 'signfold';
 *
 * const created = decide(
 *   { type: 'create-template', companyId: 1, templateId: 7, templateName: 'NDA', ownerId: 10, ownerName: 'Olive' },
 *   initialState(),
 * );
 * if (created.isOk()) console.log(created.value.map((event) => event.type)); // [ 'template-activated' ]
 * const refused = decide({ type: 'delete-template', templateId: 8 }, initialState());
 * if (refused.isErr()) console.log(refused.error.kind); // unknown-template
 * ```
 */
export const decide = (
  command: Command,
  state: ProjectionState,
): Result<readonly SignEvent[], Rejection> =>
  match(command)
    .with({ type: 'create-template' }, (c) => createTemplate(state, c))
    .with({ type: P.union('activate-template', 'inactivate-template', 'delete-template') }, (c) =>
      changeTemplate(state, c),
    )
    .with({ type: 'send-sign-request' }, (c) => sendSignRequest(state, c))
    .with({ type: P.union('decline-sign-request', 'delete-sign-request') }, (c) =>
      changeSignRequest(state, c),
    )
    .with({ type: 'send-to-participant' }, (c) => sendToParticipant(state, c))
    .with({ type: P.union('view', 'download', 'decline') }, (c) => participantAction(state, c))
    .with({ type: 'sign' }, (c) => sign(state, c))
    .exhaustive();
