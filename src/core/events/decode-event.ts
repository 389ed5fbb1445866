import { err, ok, type Result } from 'neverthrow';
import { type DecodeError, decodeError, describeValue } from '../decode-error.js';
import { decodeWellFormed } from './decode-fast.js';
import {
  EVENT_MEMBERS,
  type EventType,
  isEventType,
  MEMBER_KINDS,
  type MemberKind,
  type MemberName,
  WIRE_PARTICIPANT_NAME,
} from './event-members.js';
import type { SignEvent } from './sign-event.js';
import { wireId } from './wire-id.js';

/** Options of {@link decodeEvent} and {@link decodeEventJson}. */
export interface DecodeEventOptions {
  /** Reject members the event type does not define (default `false`: ignore them). */
  readonly strict?: boolean;
}

/** Options of {@link decodeEventJson}. */
export interface DecodeEventJsonOptions extends DecodeEventOptions {
  /** Longest accepted text, in UTF-16 code units (default 1 MiB). Guards against memory exhaustion. */
  readonly maxLength?: number;
}

/** Default of {@link DecodeEventJsonOptions.maxLength}. */
export const DEFAULT_MAX_EVENT_LENGTH = 1_048_576;

interface MemberPlan {
  readonly name: MemberName;
  readonly kind: MemberKind;
}

interface TypePlan {
  readonly members: readonly MemberPlan[];
  /** Known members of other types: present here they are an error even in lenient mode. */
  readonly forbidden: readonly string[];
  /** Every member name accepted in strict mode. */
  readonly allowed: ReadonlySet<string>;
}

const ALL_MEMBERS = Object.keys(MEMBER_KINDS) as MemberName[];

// Plans are compiled once from the member table so the per-event path is a few property reads.
const PLANS = new Map<string, TypePlan>(
  (Object.keys(EVENT_MEMBERS) as EventType[]).map((type) => {
    const names: readonly MemberName[] = EVENT_MEMBERS[type];
    const hasParticipant = names.includes('participantName');
    const forbidden: string[] = ALL_MEMBERS.filter((m) => !names.includes(m));
    if (!hasParticipant) forbidden.push(WIRE_PARTICIPANT_NAME);
    const allowed = new Set<string>(['type', ...names]);
    if (hasParticipant) allowed.add(WIRE_PARTICIPANT_NAME);
    const members = names.map((name) => ({ name, kind: MEMBER_KINDS[name] }));
    return [type, { members, forbidden, allowed }];
  }),
);

const wrongKind = (name: string, kind: MemberKind, value: unknown): DecodeError =>
  decodeError(
    'wrong-type',
    name,
    `member "${name}" must be ${kind === 'id' ? 'a safe integer' : 'a string'}, got ${describeValue(value)}`,
  );

/** Reads the participant name under either spelling (docs/service-interface.md). */
const readParticipantName = (rec: Record<string, unknown>): Result<string, DecodeError> => {
  const misspelled = rec[WIRE_PARTICIPANT_NAME];
  const canonical = rec.participantName;
  if (misspelled === undefined && canonical === undefined) {
    return err(
      decodeError(
        'missing-member',
        WIRE_PARTICIPANT_NAME,
        `missing member "${WIRE_PARTICIPANT_NAME}" (or "participantName")`,
      ),
    );
  }
  if (misspelled !== undefined && typeof misspelled !== 'string') {
    return err(wrongKind(WIRE_PARTICIPANT_NAME, 'string', misspelled));
  }
  if (canonical !== undefined && typeof canonical !== 'string') {
    return err(wrongKind('participantName', 'string', canonical));
  }
  if (misspelled !== undefined && canonical !== undefined && misspelled !== canonical) {
    return err(
      decodeError(
        'conflicting-spelling',
        'participantName',
        `"${WIRE_PARTICIPANT_NAME}" and "participantName" are both present with different values`,
      ),
    );
  }
  return ok((misspelled ?? canonical) as string);
};

const unknownType = (type: string): DecodeError => {
  const lower = type.toLowerCase();
  const hint = lower !== type && isEventType(lower) ? ` (types are lower case: "${lower}")` : '';
  // Quote at most 40 characters: the type comes from untrusted input.
  const shown = type.length > 40 ? `${JSON.stringify(type.slice(0, 40))}…` : JSON.stringify(type);
  return decodeError('unknown-type', 'type', `unknown event type ${shown}${hint}`);
};

const decodeObject = (
  rec: Record<string, unknown>,
  options: DecodeEventOptions | undefined,
): Result<SignEvent, DecodeError> => {
  const type = rec.type;
  if (type === undefined)
    return err(decodeError('missing-member', 'type', 'missing member "type"'));
  if (typeof type !== 'string') return err(wrongKind('type', 'string', type));
  const plan = PLANS.get(type);
  if (plan === undefined) return err(unknownType(type));
  if (options?.strict !== true) {
    const event = decodeWellFormed(rec, type as EventType);
    if (event !== undefined) return ok(event);
  }

  const out: Record<string, unknown> = { type };
  for (const { name, kind } of plan.members) {
    if (name === 'participantName') {
      const participantName = readParticipantName(rec);
      // Once per decoded participant event: an early return, no generator or closure (performance).
      if (participantName.isErr()) return err(participantName.error);
      out.participantName = participantName.value;
      continue;
    }
    const value = rec[name];
    if (value === undefined) {
      return err(decodeError('missing-member', name, `missing member "${name}" for ${type}`));
    }
    if (kind === 'id') {
      const id = wireId(value);
      if (id === undefined) return err(wrongKind(name, kind, value));
      out[name] = id;
    } else {
      if (typeof value !== 'string') return err(wrongKind(name, kind, value));
      out[name] = value;
    }
  }
  for (const name of plan.forbidden) {
    if (rec[name] !== undefined) {
      return err(
        decodeError('member-not-allowed', name, `member "${name}" is not allowed in ${type}`),
      );
    }
  }
  if (options?.strict === true) {
    for (const key of Object.keys(rec)) {
      if (!plan.allowed.has(key)) {
        return err(
          decodeError('unknown-member', key, `unknown member ${JSON.stringify(key)} in ${type}`),
        );
      }
    }
  }
  return ok(out as unknown as SignEvent);
};

/**
 * Validates an untrusted value (typically the result of `JSON.parse`) as one
 * of the 12 event types. Never throws: every problem is an `err` naming the
 * member. Accepts the participant name as `partcipantName` or
 * `participantName` (the decoded event has `participantName`); member order is
 * irrelevant; members no event type defines are ignored unless `strict`.
 *
 * @example
 * ```ts
 * import { decodeEvent } from 'signfold';
 *
 * const result = decodeEvent({ type: 'participant-signed', companyId: 1, signRequestId: 42 });
 * if (result.isErr()) console.log(result.error.path, result.error.message);
 * // signRequestName missing member "signRequestName" for participant-signed
 * ```
 */
export const decodeEvent = (
  input: unknown,
  options?: DecodeEventOptions,
): Result<SignEvent, DecodeError> => {
  try {
    // Inside the `try`: `Array.isArray` throws on a revoked Proxy.
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return err(
        decodeError(
          'not-an-object',
          '',
          `an event must be a JSON object, got ${describeValue(input)}`,
        ),
      );
    }
    return decodeObject(input as Record<string, unknown>, options);
  } catch (cause) {
    // Only exotic inputs get here (throwing getters, revoked proxies); JSON values never do.
    return err(
      decodeError('invalid-value', '', `reading the event failed: ${describeThrown(cause)}`),
    );
  }
};

/** Describes a thrown value; even `String(cause)` can throw (e.g. `Object.create(null)`). */
const describeThrown = (cause: unknown): string => {
  try {
    return String(cause);
  } catch {
    return 'an unprintable value was thrown';
  }
};

/**
 * Parses and validates one event from JSON text. Never throws: invalid JSON
 * and oversized text are `err`s like any other decoding problem.
 *
 * @example
 * ```ts
 * import { decodeEventJson } from 'signfold';
 *
 * const body = '{"type":"template-deleted","companyId":1,"templateId":7,"templateName":"NDA","ownerId":2,"ownerName":"Ann"}';
 * const event = decodeEventJson(body);
 * if (event.isOk()) console.log(event.value.type, event.value.templateId); // template-deleted 7
 * ```
 */
export const decodeEventJson = (
  text: string,
  options?: DecodeEventJsonOptions,
): Result<SignEvent, DecodeError> => {
  const maxLength = options?.maxLength ?? DEFAULT_MAX_EVENT_LENGTH;
  if (text.length > maxLength) {
    return err(
      decodeError(
        'too-large',
        '',
        `event text is ${text.length} characters, limit is ${maxLength}`,
      ),
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    return err(decodeError('invalid-json', '', `invalid JSON: ${(cause as Error).message}`));
  }
  return decodeEvent(value, options);
};
