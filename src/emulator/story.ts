/**
 * The stories the emulated service plays, seeded: templates, then sign
 * requests with one to three participants, signed in parallel or in order,
 * interleaved step by step as users of a real service would act. Every step
 * is a command decided by `decide` against the state the service holds, and
 * its events folded into that state: the service never emits what its own
 * rules refuse, and its state is the projection of its own events.
 */
import type { Command } from '../core/decider/command.js';
import { decide } from '../core/decider/decide.js';
import { encodeEvent, type WireEvent } from '../core/events/encode-event.js';
import type { SignEvent } from '../core/events/sign-event.js';
import { initialState, type ProjectionState } from '../core/projections/projection-state.js';
import { fold } from '../core/projections/reduce.js';
import { pick, type Random, seededRandom, subSeed } from './seeded-random.js';

/** How participants are sent a request: all at once, one after another in role order, or either. */
export type SigningOrder = 'parallel' | 'sequential' | 'mixed';

/** What to play. Every option has a default; the same options give the same story. */
export interface StoryOptions {
  /** Seed of every draw (default 1). */
  readonly seed?: number;
  /** Sign requests to play (default 20). */
  readonly requests?: number;
  /** Templates, spread over the companies (default 3). */
  readonly templates?: number;
  /** Companies 1, 2, … (default 2): isolation between tenants is in every story. */
  readonly companies?: number;
  /** Share of requests a participant declines (default 0.1). */
  readonly declineRatio?: number;
  /** Default `mixed`: each request draws parallel or sequential. */
  readonly signing?: SigningOrder;
}

/** One event the service emitted, in the order it emitted them. */
export interface EmittedEvent {
  /** 0-based place in the story. */
  readonly index: number;
  /** The id every delivery of this event carries. */
  readonly deliveryId: string;
  readonly event: SignEvent;
  /** The wire object (§6.3 member order, `partcipantName`). */
  readonly wire: WireEvent;
  /** The simulated time of the step that emitted it (ms epoch): for `savedTime`, never for the record. */
  readonly at: number;
}

/** A role of a template (docs/service-interface.md). */
export interface StoryRole {
  readonly id: number;
  readonly name: string;
  readonly sequence: number;
}

/** A participant as the service lists it, sent the request or not yet. */
export interface StoryParticipant {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly role: StoryRole;
  /** Field data entered when they signed (one per field of their role). */
  fieldData: { readonly id: number; readonly fieldId: number }[];
}

/** What the service holds of a request beyond what its events say (for its §2.1 representation). */
export interface StoryRequest {
  readonly id: number;
  readonly companyId: number;
  readonly name: string;
  readonly formType: 'Form' | 'Document';
  readonly signing: 'parallel' | 'sequential';
  readonly participants: readonly StoryParticipant[];
  readonly fields: readonly { readonly id: number; readonly roleId: number }[];
  /** Simulated time of its last event. */
  savedAt: number;
}

/** A played story: what was emitted, and what the service holds at the end. */
export interface Story {
  readonly events: readonly EmittedEvent[];
  readonly state: ProjectionState;
  readonly requests: readonly StoryRequest[];
}

const MINUTE = 60_000;
const START = Date.UTC(2025, 2, 3, 8);
const FIRST = ['Ada', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Frances', 'José', 'Zoë', 'Ken'];
const LAST = ['Lovelace', 'Hopper', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Müller', 'Okafor'];
const TEMPLATE_NAMES = ['Mutual NDA', 'Employment Contract', 'Lease', 'Purchase Order', 'Consent'];
const ROLE_NAMES = ['Signer', 'Counterparty', 'Witness', 'Approver'];

const checkCount = (name: string, value: number, min: number): number => {
  if (!(Number.isSafeInteger(value) && value >= min)) {
    throw new RangeError(`${name} must be an integer of at least ${min}, got ${value}`);
  }
  return value;
};

const checkShare = (name: string, value: number): number => {
  if (!(value >= 0 && value <= 1)) throw new RangeError(`${name} must be in [0, 1], got ${value}`);
  return value;
};

interface Person {
  readonly id: number;
  readonly name: string;
}

interface StoryTemplate {
  readonly id: number;
  readonly companyId: number;
  readonly name: string;
  readonly owner: Person;
  readonly roles: readonly StoryRole[];
}

/** What becomes of a request. */
type Fate = 'complete' | 'declined' | 'open' | 'deleted' | 'cancelled';

/** A made-up address of a participant, from their name. */
export const emailOf = (name: string): string =>
  `${name
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z ]/g, '')
    .replace(' ', '.')}@example.com`;

/** The options of a story, checked and with their defaults. */
interface StorySettings {
  readonly seed: number;
  readonly requestCount: number;
  readonly templateCount: number;
  readonly companies: number;
  readonly declineRatio: number;
  readonly signing: SigningOrder;
}

const settingsOf = (options: StoryOptions): StorySettings => ({
  seed: options.seed ?? 1,
  requestCount: checkCount('requests', options.requests ?? 20, 0),
  templateCount: checkCount('templates', options.templates ?? 3, 1),
  companies: checkCount('companies', options.companies ?? 2, 1),
  declineRatio: checkShare('declineRatio', options.declineRatio ?? 0.1),
  signing: options.signing ?? 'mixed',
});

/**
 * The service while it plays a story: its state and simulated clock, what it
 * emitted so far, and its seeded draws, each stream with a use of its own
 * (the catalog, the flow of requests, the interleaving of steps), so that a
 * change to one part of the story leaves the draws of the others alone.
 */
interface Playing {
  readonly seed: number;
  readonly catalog: Random;
  readonly flow: Random;
  readonly steps: Random;
  state: ProjectionState;
  clock: number;
  readonly events: EmittedEvent[];
  /** The users of each company, who own templates and send requests. */
  readonly users: ReadonlyMap<number, readonly Person[]>;
}

const personName = (random: Random): string => `${pick(random, FIRST)} ${pick(random, LAST)}`;

const usersOf = (playing: Playing, companyId: number): readonly Person[] =>
  playing.users.get(companyId) ?? [];

/** Decides a command and folds its events: a refusal is a fault of the story, never sent. */
const run = (playing: Playing, command: Command): boolean => {
  const decided = decide(command, playing.state);
  if (decided.isErr()) return false;
  const folded = fold(playing.state, decided.value);
  if (folded.conflicts.length > 0) throw new Error('the decider emitted a conflicting event');
  playing.state = folded.state;
  const { events } = playing;
  for (const event of decided.value) {
    const index = events.length;
    events.push({
      index,
      deliveryId: `emu-${playing.seed}-${index}`,
      event,
      wire: encodeEvent(event),
      at: playing.clock,
    });
  }
  return true;
};

/** Three users for each company, named from the catalog's draws. */
const usersByCompany = (catalog: Random, companies: number): Map<number, Person[]> => {
  const users = new Map<number, Person[]>();
  for (let c = 1; c <= companies; c += 1) {
    users.set(
      c,
      [1, 2, 3].map((k) => ({ id: c * 100 + k, name: personName(catalog) })),
    );
  }
  return users;
};

/** The templates, spread over the companies, each created a minute after the last. */
const createTemplates = (playing: Playing, settings: StorySettings): StoryTemplate[] => {
  const { catalog } = playing;
  const templates: StoryTemplate[] = [];
  for (let t = 0; t < settings.templateCount; t += 1) {
    const id = 300 + t;
    const companyId = 1 + (t % settings.companies);
    const roleCount = 1 + Math.floor(catalog() * 3);
    const template: StoryTemplate = {
      id,
      companyId,
      name: `${TEMPLATE_NAMES[t % TEMPLATE_NAMES.length]} ${id}`,
      owner: pick(catalog, usersOf(playing, companyId)),
      roles: Array.from({ length: roleCount }, (_, r) => ({
        id: id * 10 + r,
        name: ROLE_NAMES[r % ROLE_NAMES.length] ?? 'Signer',
        sequence: r,
      })),
    };
    templates.push(template);
    playing.clock += MINUTE;
    run(playing, {
      type: 'create-template',
      companyId,
      templateId: id,
      templateName: template.name,
      ownerId: template.owner.id,
      ownerName: template.owner.name,
    });
  }
  return templates;
};

/** What becomes of a request, drawn once: declined at `declineRatio`, then a few open, deleted or cancelled. */
const drawFate = (flow: Random, declineRatio: number): Fate => {
  const draw = flow();
  if (draw < declineRatio) return 'declined';
  if (draw < declineRatio + 0.15) return 'open';
  if (draw < declineRatio + 0.2) return 'deleted';
  return draw < declineRatio + 0.23 ? 'cancelled' : 'complete';
};

type Script = Generator<Command, void, boolean>;

/** The requests of the story, each with the script of its commands; nothing is run yet. */
const drawRequests = (
  playing: Playing,
  settings: StorySettings,
  templates: readonly StoryTemplate[],
): { readonly requests: StoryRequest[]; readonly scripts: Script[] } => {
  const { flow } = playing;
  const requests: StoryRequest[] = [];
  const scripts: Script[] = [];
  let nextParticipantId = 9000;
  let nextFieldId = 1;
  for (let r = 0; r < settings.requestCount; r += 1) {
    const template = pick(flow, templates);
    const alone = flow() < 0.1;
    const participants: StoryParticipant[] = template.roles.map((role) => {
      const name = personName(flow);
      return { id: nextParticipantId++, name, email: emailOf(name), role, fieldData: [] };
    });
    const fate = drawFate(flow, settings.declineRatio);
    const { signing } = settings;
    const request: StoryRequest = {
      id: 5000 + r,
      companyId: template.companyId,
      name: `${alone ? 'Letter' : template.name} - ${participants[0]?.name ?? ''}`,
      formType: flow() < 0.5 ? 'Form' : 'Document',
      signing: signing === 'mixed' ? (flow() < 0.5 ? 'parallel' : 'sequential') : signing,
      participants,
      fields: template.roles.map((role) => ({ id: nextFieldId++, roleId: role.id })),
      savedAt: playing.clock,
    };
    requests.push(request);
    const sender = pick(flow, usersOf(playing, template.companyId));
    scripts.push(requestScript(request, template, alone, fate, sender, flow));
  }
  return { requests, scripts };
};

/**
 * Runs the scripts one step at a time, in a seeded order, so the requests' events interleave;
 * each accepted command stamps its request's time, and a signature its participant's field data.
 */
const interleave = (playing: Playing, requests: readonly StoryRequest[], scripts: Script[]) => {
  const touched = new Map<number, StoryRequest>(requests.map((request) => [request.id, request]));
  const answers = new Map<Script, boolean>();
  let nextFieldDataId = 1;
  while (scripts.length > 0) {
    const at = Math.floor(playing.steps() * scripts.length);
    const script = scripts[at] as Script;
    const step = script.next(answers.get(script) ?? true);
    if (step.done) {
      scripts.splice(at, 1);
      continue;
    }
    playing.clock += (1 + Math.floor(playing.steps() * 90)) * MINUTE;
    const command = step.value;
    const accepted = run(playing, command);
    answers.set(script, accepted);
    if (!accepted || !('signRequestId' in command)) continue;
    const request = touched.get(command.signRequestId);
    if (request === undefined) continue;
    request.savedAt = playing.clock;
    if (command.type !== 'sign') continue;
    const signer = request.participants.find((p) => p.id === command.participantId);
    if (signer !== undefined) {
      signer.fieldData = request.fields
        .filter((field) => field.roleId === signer.role.id)
        .map((field) => ({ id: nextFieldDataId++, fieldId: field.id }));
    }
  }
};

/**
 * Once every request has run its course: some templates are inactivated, some deleted (a
 * request is never sent from a template that is not active).
 */
const retireTemplates = (playing: Playing, templates: readonly StoryTemplate[]): void => {
  const { catalog } = playing;
  for (const [t, template] of templates.entries()) {
    // With two templates or more, the last is deleted: every story has each template event.
    const last = t === templates.length - 1 && templates.length > 1;
    const fate = last ? 0.1 : catalog();
    playing.clock += MINUTE;
    if (fate < 0.25) run(playing, { type: 'inactivate-template', templateId: template.id });
    if (last || fate > 0.85 || (fate < 0.25 && catalog() < 0.4)) {
      playing.clock += MINUTE;
      run(playing, { type: 'delete-template', templateId: template.id });
    }
  }
};

/** Plays the story of `options`: the same options always give the same story. */
export const playStory = (options: StoryOptions = {}): Story => {
  const settings = settingsOf(options);
  const { seed } = settings;
  const catalog = seededRandom(subSeed(seed, 1));
  const playing: Playing = {
    seed,
    catalog,
    flow: seededRandom(subSeed(seed, 2)),
    steps: seededRandom(subSeed(seed, 3)),
    state: initialState(),
    clock: START,
    events: [],
    users: usersByCompany(catalog, settings.companies),
  };
  const templates = createTemplates(playing, settings);
  const { requests, scripts } = drawRequests(playing, settings, templates);
  interleave(playing, requests, scripts);
  retireTemplates(playing, templates);
  return { events: playing.events, state: playing.state, requests };
};

/**
 * The commands of one request, in its order; each `yield` answers whether the
 * service accepted the command (a script stops at the first refusal).
 */
function* requestScript(
  request: StoryRequest,
  template: StoryTemplate,
  alone: boolean,
  fate: Fate,
  sender: Person,
  random: Random,
): Generator<Command, void, boolean> {
  const ordered = [...request.participants].sort((a, b) => a.role.sequence - b.role.sequence);
  const facts = (p: StoryParticipant) => ({
    participantId: p.id,
    participantName: p.name,
    roleId: p.role.id,
    roleName: p.role.name,
  });
  const sequential = request.signing === 'sequential';
  const base = {
    type: 'send-sign-request' as const,
    companyId: request.companyId,
    signRequestId: request.id,
    signRequestName: request.name,
    ownerId: template.owner.id,
    ownerName: template.owner.name,
    senderId: sender.id,
    senderName: sender.name,
    templateId: alone ? 700 + request.id : template.id,
    participants: (sequential ? ordered.slice(0, 1) : ordered).map(facts),
  };
  const sent: boolean = yield alone
    ? { ...base, from: 'document', templateName: `Letter ${request.id}` }
    : base;
  if (!sent) return;

  const ids = ordered.map((p) => p.id);
  // Who stops the request: the participant who declines, or the one who leaves it open.
  const stopper = Math.floor(random() * ordered.length);
  const stopAfter = 1 + Math.floor(random() * (ordered.length * 2));
  let actions = 0;
  const cut = (): boolean => {
    actions += 1;
    return (fate === 'deleted' || fate === 'cancelled') && actions > stopAfter;
  };
  const order = sequential ? ordered : shuffled(ordered, random);
  for (const [place, participant] of order.entries()) {
    if (sequential && place > 0) {
      const ok: boolean = yield {
        type: 'send-to-participant',
        signRequestId: request.id,
        participant: facts(participant),
        after: ids.slice(0, ids.indexOf(participant.id)),
      };
      if (!ok) return;
    }
    const act = { signRequestId: request.id, participantId: participant.id };
    const views = 1 + Math.floor(random() * 2);
    for (let v = 0; v < views; v += 1) {
      if (cut()) break;
      if (!(yield { type: 'view', ...act })) return;
      if (random() < 0.15 && !(yield { type: 'download', ...act })) return;
    }
    if (cut()) break;
    const isStopper = place === stopper;
    if (fate === 'declined' && isStopper) {
      yield { type: 'decline', ...act };
      return;
    }
    if (fate === 'open' && isStopper) {
      if (sequential) return;
      continue;
    }
    if (!(yield { type: 'sign', ...act, signers: ids })) return;
  }
  if (fate === 'deleted') yield { type: 'delete-sign-request', signRequestId: request.id };
  if (fate === 'cancelled') yield { type: 'decline-sign-request', signRequestId: request.id };
}

const shuffled = <T>(items: readonly T[], random: Random): T[] =>
  items
    .map((item) => ({ item, key: random() }))
    .sort((a, b) => a.key - b.key)
    .map(({ item }) => item);
