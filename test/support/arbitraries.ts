/**
 * fast-check arbitraries for events: wire objects as the service publishes
 * them (spec §6), decoded events, and realistic-but-random event streams over
 * a small id space (so that collisions and conflicts are frequent).
 *
 * They are written from the spec's member table, not through the decoder, so
 * property tests that use them check the decoder rather than echo it.
 */
import fc from 'fast-check';
import type { DecodeErrorKind } from '../../src/core/decode-error.js';
import { decodeEvent } from '../../src/core/events/decode-event.js';
import {
  EVENT_MEMBERS,
  EVENT_TYPES,
  type EventType,
  MEMBER_KINDS,
  type MemberName,
  WIRE_PARTICIPANT_NAME,
} from '../../src/core/events/event-members.js';
import type { SignEvent } from '../../src/core/events/sign-event.js';

/** Any safe integer, the value space of every id member. */
export const safeIdArb: fc.Arbitrary<number> = fc.integer({
  min: Number.MIN_SAFE_INTEGER,
  max: Number.MAX_SAFE_INTEGER,
});

/** Any of the 12 event types. */
export const eventTypeArb: fc.Arbitrary<EventType> = fc.constantFrom(...EVENT_TYPES);

/** Event types that carry a participant (and so a participant name). */
export const PARTICIPANT_EVENT_TYPES = EVENT_TYPES.filter((t) => t.startsWith('participant-'));

/** The canonical members (besides `type`) an event of `type` carries. */
export const membersOf = (type: EventType): readonly MemberName[] => EVENT_MEMBERS[type];

/** Whether events of `type` carry a participant name. */
export const hasParticipantName = (type: EventType): boolean =>
  membersOf(type).includes('participantName');

const valueArb = (name: MemberName): fc.Arbitrary<string | number> =>
  MEMBER_KINDS[name] === 'id' ? safeIdArb : fc.string();

/**
 * A valid decoded event of `type` (any type if omitted), built directly from
 * the member table: safe-integer ids, arbitrary strings, canonical
 * `participantName`. This is what `decodeEvent` must return for its wire form.
 */
export const signEventArb = (type?: EventType): fc.Arbitrary<SignEvent> =>
  (type === undefined ? eventTypeArb : fc.constant(type)).chain((t) => {
    const members: Record<string, fc.Arbitrary<string | number>> = {};
    for (const name of membersOf(t)) members[name] = valueArb(name);
    return fc.record(members).map((values) => ({ type: t, ...values }) as unknown as SignEvent);
  });

/** How the participant name is spelled in a generated wire event. */
export type NameSpelling = 'partcipantName' | 'participantName' | 'both';

/** A generated wire event together with the decoded event it must decode to. */
export interface WireCase {
  readonly wire: Record<string, unknown>;
  readonly expected: SignEvent;
}

const shuffled = <T>(items: readonly T[]): fc.Arbitrary<T[]> =>
  fc
    .array(fc.double({ noNaN: true }), { minLength: items.length, maxLength: items.length })
    .map((keys) =>
      items
        .map((item, i) => ({ item, key: keys[i] ?? 0 }))
        .sort((a, b) => a.key - b.key)
        .map(({ item }) => item),
    );

/**
 * A valid wire event (as parsed JSON) and the event it decodes to: members in
 * random order, the participant name under either spelling or both with the
 * same value (spec §6.1 rules 1–2). No extra members.
 */
export const wireCaseArb = (type?: EventType): fc.Arbitrary<WireCase> =>
  signEventArb(type).chain((expected) => {
    const entries: [string, unknown][] = [];
    const source = expected as unknown as Record<string, unknown>;
    const spelling: fc.Arbitrary<NameSpelling> = hasParticipantName(expected.type)
      ? fc.constantFrom('partcipantName', 'participantName', 'both')
      : fc.constant('participantName');
    return spelling.chain((sp) => {
      for (const [key, value] of Object.entries(source)) {
        if (key !== 'participantName') entries.push([key, value]);
        else {
          if (sp !== 'participantName') entries.push([WIRE_PARTICIPANT_NAME, value]);
          if (sp !== 'partcipantName') entries.push(['participantName', value]);
        }
      }
      return shuffled(entries).map((order) => ({ wire: Object.fromEntries(order), expected }));
    });
  });

/** A valid wire event, members in random order, either participant-name spelling. */
export const wireEventArb = (type?: EventType): fc.Arbitrary<Record<string, unknown>> =>
  wireCaseArb(type).map(({ wire }) => wire);

/** A value of the wrong kind for a member of `kind` (every one is rejected). */
export const wrongValueArb = (kind: 'id' | 'string'): fc.Arbitrary<unknown> =>
  kind === 'id'
    ? fc.oneof(
        safeIdArb.map(String), // numeric string
        fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)),
        fc.constantFrom(
          Number.MAX_SAFE_INTEGER + 1,
          -(2 ** 60),
          Number.POSITIVE_INFINITY, // what JSON.parse makes of 1e400
          Number.NEGATIVE_INFINITY,
          Number.NaN,
          null,
          true,
          false,
        ),
        fc.constant([]),
        fc.constant({}),
        fc.string(),
      )
    : fc.oneof(
        safeIdArb,
        fc.double(),
        fc.constantFrom(null, true, false),
        fc.array(fc.string(), { maxLength: 2 }),
        fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
      );

/** A mutated wire event and how the decoder must reject it. */
export interface WireMutation {
  /** What was done, for failure messages. */
  readonly description: string;
  readonly wire: Record<string, unknown>;
  readonly expectedKind: DecodeErrorKind;
  readonly expectedPath: string;
}

const without = (rec: Record<string, unknown>, key: string): Record<string, unknown> => {
  const { [key]: _removed, ...rest } = rec;
  return rest;
};

/** Canonical member names never accepted anywhere, for renames (plus the wire spelling). */
const KNOWN_NAMES = new Set<string>(['type', ...Object.keys(MEMBER_KINDS), WIRE_PARTICIPANT_NAME]);

/**
 * A valid wire event broken in one way the decoder must reject, with the error
 * kind and path it must report: a member removed, renamed to a name the type
 * does not accept, given a value of the wrong kind, the participant name given
 * twice with different values, `type` in the wrong letter case, or a member of
 * another type added. (Renaming one participant-name spelling to the other is
 * valid, so it is never generated.)
 */
export const wireMutationArb: fc.Arbitrary<WireMutation> = wireCaseArb().chain(
  ({ wire, expected }) => {
    const keys = Object.keys(wire);
    const nameKeys: string[] = keys.filter(
      (k) => k === WIRE_PARTICIPANT_NAME || k === 'participantName',
    );
    // Removing the participant name only breaks the event when it is spelled once.
    const removable = keys.filter((k) => !(nameKeys.includes(k) && nameKeys.length > 1));
    const missingPath = (key: string) => (nameKeys.includes(key) ? WIRE_PARTICIPANT_NAME : key);

    const removed = fc.constantFrom(...removable).map(
      (key): WireMutation => ({
        description: `removed ${key}`,
        wire: without(wire, key),
        expectedKind: 'missing-member',
        expectedPath: missingPath(key),
      }),
    );

    const renamed = fc
      .tuple(
        fc.constantFrom(...removable),
        fc.string({ minLength: 1 }).filter((s) => !KNOWN_NAMES.has(s) && s !== '__proto__'),
      )
      .map(
        ([key, to]): WireMutation => ({
          description: `renamed ${key} to ${JSON.stringify(to)}`,
          wire: { ...without(wire, key), [to]: wire[key] },
          expectedKind: 'missing-member',
          expectedPath: missingPath(key),
        }),
      );

    const retyped = fc.constantFrom(...keys).chain((key) => {
      const kind =
        key === 'type' || nameKeys.includes(key) ? 'string' : MEMBER_KINDS[key as MemberName];
      return wrongValueArb(kind).map(
        (value): WireMutation => ({
          description: `retyped ${key} to ${fc.stringify(value)}`,
          wire: { ...wire, [key]: value },
          // null / wrong kinds of `type` are wrong-type, as for any member.
          expectedKind: 'wrong-type',
          expectedPath: key,
        }),
      );
    });

    const mutations: fc.Arbitrary<WireMutation>[] = [removed, renamed, retyped];

    if (hasParticipantName(expected.type)) {
      const name = (expected as { readonly participantName: string }).participantName;
      mutations.push(
        fc
          .string()
          .filter((other) => other !== name)
          .map(
            (other): WireMutation => ({
              description: `participant name spelled twice: ${JSON.stringify(name)} / ${JSON.stringify(other)}`,
              wire: { ...wire, [WIRE_PARTICIPANT_NAME]: name, participantName: other },
              expectedKind: 'conflicting-spelling',
              expectedPath: 'participantName',
            }),
          ),
      );
    }

    mutations.push(
      fc
        .array(fc.boolean(), { minLength: expected.type.length, maxLength: expected.type.length })
        .map((mask) =>
          [...expected.type].map((c, i) => (mask[i] === true ? c.toUpperCase() : c)).join(''),
        )
        .filter((cased) => cased !== expected.type)
        .map(
          (cased): WireMutation => ({
            description: `type spelled ${cased}`,
            wire: { ...wire, type: cased },
            expectedKind: 'unknown-type',
            expectedPath: 'type',
          }),
        ),
    );

    const foreign = (Object.keys(MEMBER_KINDS) as MemberName[]).filter(
      (m) => !membersOf(expected.type).includes(m),
    );
    if (!hasParticipantName(expected.type)) foreign.push(WIRE_PARTICIPANT_NAME as MemberName);
    if (foreign.length > 0) {
      mutations.push(
        fc.tuple(fc.constantFrom(...foreign), fc.oneof(safeIdArb, fc.string())).map(
          ([key, value]): WireMutation => ({
            description: `added ${key} of another type`,
            wire: { ...wire, [key]: value },
            expectedKind: 'member-not-allowed',
            expectedPath: key,
          }),
        ),
      );
    }
    return fc.oneof(...mutations);
  },
);

// ---------------------------------------------------------------------------
// Event streams over a small id space

/** The small id space of {@link eventStreamArb}: few ids, so events often meet. */
export const SMALL_IDS = {
  companies: [1, 2],
  templates: [100, 101, 102],
  signRequests: [1000, 1001, 1002, 1003],
  participants: [1, 2, 3],
  roles: [7, 8],
  users: [10, 11],
} as const;

/**
 * The "true" facts of a random world: which company owns each template and
 * request, which template each request uses, which role each participant
 * holds. Stream events mostly agree with it, so they build up state; a few
 * disagree, so isolation and reference conflicts happen too.
 */
export interface SmallWorld {
  readonly templateCompany: Readonly<Record<number, number>>;
  readonly requestCompany: Readonly<Record<number, number>>;
  readonly requestTemplate: Readonly<Record<number, number>>;
  /** Keyed by `${signRequestId}/${participantId}`. */
  readonly participantRole: Readonly<Record<string, number>>;
}

const pick = <T>(items: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...items);

const keyedRecord = <K extends string | number, V>(
  keys: readonly K[],
  value: fc.Arbitrary<V>,
): fc.Arbitrary<Record<K, V>> =>
  fc
    .tuple(...keys.map(() => value))
    .map((values) => Object.fromEntries(keys.map((k, i) => [k, values[i]])) as Record<K, V>);

/** A random {@link SmallWorld} over {@link SMALL_IDS}. */
export const smallWorldArb: fc.Arbitrary<SmallWorld> = fc.record({
  templateCompany: keyedRecord(SMALL_IDS.templates, pick(SMALL_IDS.companies)),
  requestCompany: keyedRecord(SMALL_IDS.signRequests, pick(SMALL_IDS.companies)),
  requestTemplate: keyedRecord(SMALL_IDS.signRequests, pick(SMALL_IDS.templates)),
  participantRole: keyedRecord(
    SMALL_IDS.signRequests.flatMap((r) => SMALL_IDS.participants.map((p) => `${r}/${p}`)),
    pick(SMALL_IDS.roles),
  ),
});

/** Names come from tiny sets so that renames (latest wins) and repeats both happen. */
const nameArb = fc.constantFrom('A', 'B');

/**
 * One decoded event of a stream in `world`. Template events and request
 * events are weighted so that every status rule is reached; about one event
 * in eight contradicts the world (other company, template or role).
 */
export const streamEventArb = (world: SmallWorld): fc.Arbitrary<SignEvent> =>
  fc
    .record({
      type: fc.oneof(
        { weight: 1, arbitrary: pick(EVENT_TYPES.slice(0, 3)) },
        { weight: 2, arbitrary: pick(EVENT_TYPES.slice(3, 7)) },
        { weight: 3, arbitrary: pick(EVENT_TYPES.slice(7)) },
      ),
      templateId: pick(SMALL_IDS.templates),
      signRequestId: pick(SMALL_IDS.signRequests),
      participantId: pick(SMALL_IDS.participants),
      glitch: fc.oneof(
        { weight: 14, arbitrary: fc.constant('none' as const) },
        { weight: 1, arbitrary: fc.constant('company' as const) },
        { weight: 1, arbitrary: fc.constant('template' as const) },
        { weight: 1, arbitrary: fc.constant('role' as const) },
      ),
      other: fc.record({
        company: pick(SMALL_IDS.companies),
        template: pick(SMALL_IDS.templates),
        role: pick(SMALL_IDS.roles),
      }),
      ownerId: pick(SMALL_IDS.users),
      senderId: pick(SMALL_IDS.users),
      names: fc.record({
        owner: nameArb,
        sender: nameArb,
        template: nameArb,
        signRequest: nameArb,
        participant: nameArb,
        role: nameArb,
      }),
    })
    .map((g) => {
      const isTemplateEvent = g.type.startsWith('template-');
      const request = g.signRequestId;
      const templateId =
        g.glitch === 'template'
          ? g.other.template
          : isTemplateEvent
            ? g.templateId
            : (world.requestTemplate[request] ?? g.templateId);
      const truthCompany = isTemplateEvent
        ? world.templateCompany[templateId]
        : world.requestCompany[request];
      const values: Record<string, string | number> = {
        companyId: g.glitch === 'company' ? g.other.company : (truthCompany ?? 1),
        ownerId: g.ownerId,
        ownerName: g.names.owner,
        templateId,
        templateName: g.names.template,
        senderId: g.senderId,
        senderName: g.names.sender,
        signRequestId: request,
        signRequestName: g.names.signRequest,
        participantId: g.participantId,
        participantName: g.names.participant,
        roleId:
          g.glitch === 'role'
            ? g.other.role
            : (world.participantRole[`${request}/${g.participantId}`] ?? 7),
        roleName: g.names.role,
      };
      const wire: Record<string, unknown> = { type: g.type };
      for (const name of membersOf(g.type)) wire[name] = values[name];
      return decodeEvent(wire)._unsafeUnwrap();
    });

/** Options of {@link eventStreamArb}. */
export interface EventStreamOptions {
  readonly minLength?: number;
  readonly maxLength?: number;
}

/**
 * A realistic-but-random sequence of decoded events over {@link SMALL_IDS}
 * (2 companies, 3 templates, 4 requests, 3 participants each): late, missing,
 * repeated and contradicting events are all common.
 */
export const eventStreamArb = (options: EventStreamOptions = {}): fc.Arbitrary<SignEvent[]> =>
  smallWorldArb.chain((world) =>
    fc.array(streamEventArb(world), {
      minLength: options.minLength ?? 0,
      maxLength: options.maxLength ?? 40,
      // fast-check's default size caps arrays at 10 elements whatever maxLength says.
      size: 'max',
    }),
  );

/** Two consecutive parts of one stream, for split/associativity laws. */
export const splitStreamArb = (
  options: EventStreamOptions = {},
): fc.Arbitrary<readonly [SignEvent[], SignEvent[]]> =>
  eventStreamArb(options).chain((events) =>
    fc
      .integer({ min: 0, max: events.length })
      .map((at) => [events.slice(0, at), events.slice(at)] as const),
  );
