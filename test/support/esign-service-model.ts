/**
 * The e-signature service of the spec (docs/service-interface.md) as a seeded story: templates
 * and sign requests with participants, moved through their lifecycle in simulated time, with the
 * wire events (spec §6) each step emits and the records the service holds at the end (its truth,
 * and its §2 representation).
 *
 * The spec publishes no transitions, so these are the simulator's, chosen to be what a real
 * service plausibly does and nothing signfold's rules would call impossible: a request is created
 * as a draft (no event: the spec has none), sent to its participants (all at once, or one after
 * another in signing order), each participant views before acting, one decline declines the
 * request, all signatures complete it, and nothing happens to a request after it is completed,
 * declined or deleted. Templates change status only after every request exists, so a request is
 * never sent from an inactive or deleted template.
 */
import { mulberry32, subSeed } from '../../bench/stream/seeded-random.js';

export type TemplateStatus = 'active' | 'inactive' | 'deleted';
export type SimSignRequestStatus = 'draft' | 'sent' | 'completed' | 'declined';
export type SimParticipantStatus = 'sent' | 'viewed' | 'signed' | 'declined';
/**
 * `parallel`: every participant is sent the request at once. `sequential`: in the order of
 * `role.sequence` (spec §2.3), each once the one before has signed, so a request that is sent
 * can have participants the service lists but has not sent it to yet (no status, no event).
 */
export type SigningOrder = 'parallel' | 'sequential';

interface Person {
  readonly id: number;
  readonly name: string;
}

interface SimRole {
  readonly id: number;
  readonly name: string;
  readonly sequence: number;
}

interface SimTemplate {
  readonly id: number;
  readonly companyId: number;
  readonly name: string;
  readonly owner: Person;
  readonly roles: readonly SimRole[];
  status: TemplateStatus;
}

interface SimFieldData {
  readonly id: number;
  readonly fieldId: number;
}

interface SimParticipant {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly role: SimRole;
  /** `null` while the request is a draft: the service has not sent it to anyone yet. */
  status: SimParticipantStatus | null;
  fieldData: SimFieldData[];
}

interface SimSignRequest {
  readonly id: number;
  readonly companyId: number;
  readonly name: string;
  readonly formType: 'Form' | 'Document';
  readonly template: SimTemplate;
  readonly sender: Person;
  readonly fields: readonly { readonly id: number; readonly roleId: number }[];
  readonly participants: SimParticipant[];
  status: SimSignRequestStatus;
  deleted: boolean;
  savedAt: number;
}

/** One event the service emitted, in the order it emitted them. */
export interface StoryEvent {
  /** 0-based place in the story. */
  readonly index: number;
  /** Simulated time it happened (ms epoch). */
  readonly at: number;
  /** The id every delivery of this event carries (a redelivery carries the same). */
  readonly deliveryId: string;
  /** The wire event: members in the order of spec §6.3, `partcipantName` as §6.1 rule 2 says. */
  readonly event: Readonly<Record<string, string | number>>;
  /** The body as sent (`JSON.stringify(event)`). */
  readonly text: string;
}

/** A participant as the service knows it at the end. */
export interface TruthParticipant {
  readonly id: number;
  readonly status: SimParticipantStatus | null;
}

/** A sign request as the service knows it at the end. */
export interface TruthSignRequest {
  readonly id: number;
  readonly companyId: number;
  readonly templateId: number;
  readonly status: SimSignRequestStatus;
  readonly deleted: boolean;
  readonly participants: readonly TruthParticipant[];
}

/** A template as the service knows it at the end. */
export interface TruthTemplate {
  readonly id: number;
  readonly companyId: number;
  readonly status: TemplateStatus;
}

/** Everything the service knows at the end of the story. */
export interface ServiceTruth {
  readonly templates: readonly TruthTemplate[];
  readonly signRequests: readonly TruthSignRequest[];
}

/** How big a story to tell. */
export interface StoryOptions {
  readonly seed: number;
  /** Default 40. */
  readonly signRequests?: number;
  /** Default 4, spread over the companies. */
  readonly templates?: number;
  /** Default 2 (companies 1, 2, …): isolation between companies is part of every story. */
  readonly companies?: number;
  /** Whether participants are all sent the request at once (default) or one after another. */
  readonly signingOrder?: SigningOrder;
  /** Simulated start (ms epoch); default 2025-03-03T08:00:00Z. */
  readonly start?: number;
}

/** The told story: its events in order, and the records as they stand at the end. */
export interface ServiceStory {
  readonly events: readonly StoryEvent[];
  readonly truth: ServiceTruth;
  /** The §2 representation of a sign request, or `undefined` for an unknown or deleted one. */
  representation(signRequestId: number): Record<string, unknown> | undefined;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const FIRST = ['Ada', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Frances', 'José', 'Zoë', 'Ken'];
const LAST = ['Lovelace', 'Hopper', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Müller', 'Okafor'];
const TEMPLATE_NAMES = ['Mutual NDA', 'Employment Contract', 'Lease', 'Purchase Order', 'Consent'];
const ROLE_NAMES = ['Signer', 'Counterparty', 'Witness', 'Approver'];
// A 1×1 PNG: the §2.4 image of a signature, kept tiny so representations stay small.
const SIGNATURE_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const WITH_TEMPLATE = new Set([
  'sign-request-sent',
  'sign-request-completed',
  'participant-sent',
  'participant-signed',
]);

/** `YYYY-MM-DD HH:MM:SS` of a time, in UTC: the spec gives `savedTime` no zone, so one is chosen. */
export const savedTimeOf = (at: number): string =>
  new Date(at).toISOString().slice(0, 19).replace('T', ' ');

const capitalised = (status: string): string => status[0]?.toUpperCase() + status.slice(1);

/** Tells the story of `options.seed`: the same options always give the same story. */
export const tellStory = (options: StoryOptions): ServiceStory => {
  const {
    seed,
    signRequests = 40,
    templates: templateCount = 4,
    companies = 2,
    signingOrder = 'parallel',
  } = options;
  if (!(Number.isInteger(templateCount) && templateCount >= 1)) {
    throw new RangeError(`templates must be a positive integer, got ${templateCount}`);
  }
  if (!(Number.isInteger(companies) && companies >= 1)) {
    throw new RangeError(`companies must be a positive integer, got ${companies}`);
  }
  const start = options.start ?? Date.UTC(2025, 2, 3, 8);
  // Separate streams, so that a change in how one part draws leaves the others' draws alone.
  const catalogRandom = mulberry32(subSeed(seed, 11));
  const flowRandom = mulberry32(subSeed(seed, 12));
  const pick = <T>(random: () => number, items: readonly T[]): T =>
    items[Math.floor(random() * items.length)] as T;
  const personName = (random: () => number): string =>
    `${pick(random, FIRST)} ${pick(random, LAST)}`;

  const users = new Map<number, Person[]>();
  for (let c = 1; c <= companies; c += 1) {
    users.set(
      c,
      [1, 2, 3].map((k) => ({ id: c * 100 + k, name: personName(catalogRandom) })),
    );
  }
  const usersOf = (companyId: number): Person[] => users.get(companyId) ?? [];

  const timed: { at: number; order: number; event: Record<string, string | number> }[] = [];
  const emit = (at: number, event: Record<string, string | number>): void => {
    timed.push({ at, order: timed.length, event });
  };

  const templates: SimTemplate[] = [];
  for (let t = 0; t < templateCount; t += 1) {
    const companyId = 1 + (t % companies);
    const id = 300 + t;
    const roleCount = 1 + Math.floor(catalogRandom() * 3);
    const template: SimTemplate = {
      id,
      companyId,
      name: `${TEMPLATE_NAMES[t % TEMPLATE_NAMES.length]} ${id}`,
      owner: pick(catalogRandom, usersOf(companyId)),
      roles: Array.from({ length: roleCount }, (_, r) => ({
        id: id * 10 + r,
        name: ROLE_NAMES[r % ROLE_NAMES.length] ?? 'Signer',
        sequence: r,
      })),
      status: 'active',
    };
    templates.push(template);
    emit(start + t * MINUTE, templateEvent('template-activated', template));
  }

  const requests: SimSignRequest[] = [];
  let nextParticipantId = 9000;
  let nextFieldId = 1;
  let nextFieldDataId = 1;
  let lastAt = start;
  for (let r = 0; r < signRequests; r += 1) {
    const template = pick(flowRandom, templates);
    const createdAt = start + HOUR + Math.floor(flowRandom() * 10 * 24 * 60) * MINUTE;
    const participants: SimParticipant[] = template.roles.map((role) => {
      const name = personName(flowRandom);
      return {
        id: nextParticipantId++,
        name,
        email: `${name
          .toLowerCase()
          .normalize('NFD')
          .replace(/[^a-z ]/g, '')
          .replace(' ', '.')}@example.com`,
        role,
        status: null,
        fieldData: [],
      };
    });
    const request: SimSignRequest = {
      id: 5000 + r,
      companyId: template.companyId,
      name: `${template.name} - ${participants[0]?.name ?? ''}`,
      formType: flowRandom() < 0.5 ? 'Form' : 'Document',
      template,
      sender: pick(flowRandom, usersOf(template.companyId)),
      fields: template.roles.map((role) => ({ id: nextFieldId++, roleId: role.id })),
      participants,
      status: 'draft',
      deleted: false,
      savedAt: createdAt,
    };
    requests.push(request);
    const at = runRequest(
      request,
      createdAt,
      signingOrder,
      flowRandom,
      emit,
      () => nextFieldDataId++,
    );
    lastAt = Math.max(lastAt, at);
  }

  // After every request exists and has run its course: so none is sent from a template that is
  // no longer active, and a late toggle is far (in the story) from the activation it follows.
  let templateAt = lastAt + HOUR;
  for (const template of templates) {
    const fate = catalogRandom();
    if (fate < 0.3) {
      template.status = 'inactive';
      templateAt += MINUTE;
      emit(templateAt, templateEvent('template-inactivated', template));
    }
    if (fate > 0.8 || (fate < 0.3 && catalogRandom() < 0.4)) {
      template.status = 'deleted';
      templateAt += MINUTE;
      emit(templateAt, templateEvent('template-deleted', template));
    }
  }

  timed.sort((a, b) => a.at - b.at || a.order - b.order);
  const events = timed.map(({ at, event }, index) => ({
    index,
    at,
    deliveryId: `sim-${seed}-${index}`,
    event,
    text: JSON.stringify(event),
  }));
  const byId = new Map(requests.map((request) => [request.id, request]));
  return {
    events,
    truth: {
      templates: templates.map(({ id, companyId, status }) => ({ id, companyId, status })),
      signRequests: requests.map((request) => ({
        id: request.id,
        companyId: request.companyId,
        templateId: request.template.id,
        status: request.status,
        deleted: request.deleted,
        participants: request.participants.map(({ id, status }) => ({ id, status })),
      })),
    },
    representation: (id) => {
      const request = byId.get(id);
      return request === undefined || request.deleted ? undefined : representationOf(request);
    },
  };
};

type Emit = (at: number, event: Record<string, string | number>) => void;

type Action = { readonly at: number; readonly participant: SimParticipant; readonly kind: string };

/** What one participant will do once sent at `sentAt`: views (and downloads), then maybe a verdict. */
const drawActions = (
  participant: SimParticipant,
  sentAt: number,
  random: () => number,
): Action[] => {
  const actions: Action[] = [];
  let at = sentAt + (1 + Math.floor(random() * 48 * 60)) * MINUTE;
  const outcome = random();
  const views = outcome < 0.85 ? 1 + Math.floor(random() * 2) : Math.floor(random() * 2);
  for (let v = 0; v < views; v += 1) {
    actions.push({ at, participant, kind: 'participant-viewed' });
    at += (1 + Math.floor(random() * 600)) * MINUTE;
    if (random() < 0.15) {
      actions.push({ at, participant, kind: 'participant-downloaded' });
      at += (1 + Math.floor(random() * 60)) * MINUTE;
    }
  }
  if (views > 0 && outcome < 0.75) actions.push({ at, participant, kind: 'participant-signed' });
  else if (views > 0 && outcome < 0.85) {
    actions.push({ at, participant, kind: 'participant-declined' });
  }
  return actions;
};

/**
 * Runs one request from its creation to its end; returns the time of its last event. Actions
 * are drawn first, then played in time order against the request, so that a decline, a
 * completion or a deletion stops what would have come after it.
 */
const runRequest = (
  request: SimSignRequest,
  createdAt: number,
  signingOrder: SigningOrder,
  random: () => number,
  emit: Emit,
  fieldDataId: () => number,
): number => {
  const fate = random();
  if (fate < 0.1) {
    // Never sent; a third of those are thrown away (the service's only event for a draft).
    if (random() < 0.35) return remove(request, createdAt + HOUR, emit);
    return createdAt;
  }
  const sentAt = createdAt + (5 + Math.floor(random() * 55)) * MINUTE;
  request.status = 'sent';
  request.savedAt = sentAt;
  emit(sentAt, requestEvent('sign-request-sent', request));
  let last = sentAt;
  const send = (participant: SimParticipant, at: number): void => {
    participant.status = 'sent';
    request.savedAt = at;
    last = at;
    emit(at, participantEvent('participant-sent', request, participant));
  };
  const play = (actions: readonly Action[], deleteAt: number): void => {
    for (const { at, participant, kind } of actions) {
      if (at >= deleteAt || request.status !== 'sent') return;
      request.savedAt = at;
      last = at;
      if (kind === 'participant-viewed' && participant.status === 'sent') {
        participant.status = 'viewed';
      }
      if (kind === 'participant-signed') {
        participant.status = 'signed';
        participant.fieldData = request.fields
          .filter((field) => field.roleId === participant.role.id)
          .map((field) => ({ id: fieldDataId(), fieldId: field.id }));
      }
      if (kind === 'participant-declined') participant.status = 'declined';
      emit(at, participantEvent(kind, request, participant));
      if (kind === 'participant-declined') {
        request.status = 'declined';
        last = at + MINUTE;
        request.savedAt = last;
        emit(last, requestEvent('sign-request-declined', request));
      } else if (request.participants.every((p) => p.status === 'signed')) {
        request.status = 'completed';
        last = at + MINUTE;
        request.savedAt = last;
        emit(last, requestEvent('sign-request-completed', request));
      }
    }
  };
  // Some requests are deleted part-way, which cuts off whatever was still to come.
  const drawDeleteAt = (): number =>
    random() < 0.06 ? sentAt + Math.floor(random() * 72 * 60) * MINUTE : Number.POSITIVE_INFINITY;

  let deleteAt: number;
  if (signingOrder === 'parallel') {
    request.participants.forEach((participant, p) => {
      send(participant, sentAt + (p + 1) * 1000);
    });
    const actions = request.participants.flatMap((p) => drawActions(p, sentAt, random));
    deleteAt = drawDeleteAt();
    play(
      actions.sort((a, b) => a.at - b.at),
      deleteAt,
    );
  } else {
    // In role.sequence order: the next participant is sent the request once the one before
    // has signed, and never when they declined, did nothing, or the request was deleted first.
    deleteAt = drawDeleteAt();
    for (const participant of request.participants) {
      const at = last + 1000;
      if (at >= deleteAt) break;
      send(participant, at);
      play(drawActions(participant, at, random), deleteAt);
      if (participant.status !== 'signed') break;
    }
  }
  return Number.isFinite(deleteAt)
    ? remove(request, Math.max(deleteAt, last + MINUTE), emit)
    : last;
};

const remove = (request: SimSignRequest, at: number, emit: Emit): number => {
  request.deleted = true;
  request.savedAt = at;
  emit(at, requestEvent('sign-request-deleted', request));
  return at;
};

const templateEvent = (type: string, template: SimTemplate): Record<string, string | number> => ({
  type,
  companyId: template.companyId,
  templateId: template.id,
  templateName: template.name,
  ownerId: template.owner.id,
  ownerName: template.owner.name,
});

const requestMembers = (type: string, request: SimSignRequest) => ({
  type,
  companyId: request.companyId,
  signRequestId: request.id,
  signRequestName: request.name,
  ...(WITH_TEMPLATE.has(type)
    ? { templateId: request.template.id, templateName: request.template.name }
    : {}),
});

// The request's owner is its template's: the spec names an owner for every record, not how.
const closingMembers = (request: SimSignRequest) => ({
  senderId: request.sender.id,
  senderName: request.sender.name,
  ownerId: request.template.owner.id,
  ownerName: request.template.owner.name,
});

const requestEvent = (type: string, request: SimSignRequest): Record<string, string | number> => ({
  ...requestMembers(type, request),
  ...closingMembers(request),
});

const participantEvent = (
  type: string,
  request: SimSignRequest,
  participant: SimParticipant,
): Record<string, string | number> => ({
  ...requestMembers(type, request),
  participantId: participant.id,
  partcipantName: participant.name,
  roleId: participant.role.id,
  roleName: participant.role.name,
  ...closingMembers(request),
});

/**
 * §2 as the samples show it: statuses capitalised (`Completed`, `Signed`), which the spec allows
 * and signfold must accept. A draft's participants carry no status: the spec lists none for
 * someone the request was not sent to yet.
 */
const representationOf = (request: SimSignRequest): Record<string, unknown> => ({
  id: request.id,
  name: request.name,
  status: capitalised(request.status),
  formType: request.formType,
  participants: request.participants.map((participant) => ({
    id: participant.id,
    name: participant.name,
    email: participant.email,
    ...(participant.status === null ? {} : { status: capitalised(participant.status) }),
    role: { ...participant.role },
    fieldData: participant.fieldData.map((data) => ({
      ...data,
      imageContent: SIGNATURE_PNG,
      imageMimetype: 'image/png',
    })),
  })),
  savedTime: savedTimeOf(request.savedAt),
  fields: request.fields.map((field) => ({
    ...field,
    required: true,
    isMasked: false,
    type: 'signature',
  })),
});
