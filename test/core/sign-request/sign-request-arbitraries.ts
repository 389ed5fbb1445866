/**
 * fast-check arbitraries for valid sign-request representations, written from
 * the spec rather than from the decoder's description so the two check each other.
 */
import fc from 'fast-check';
import type { ParticipantId, RoleId, SignRequestId } from '../../../src/core/ids.js';
import {
  type ApiParticipantStatus,
  KNOWN_PARTICIPANT_STATUSES,
} from '../../../src/core/sign-request/participant-status.js';
import { parseSavedTime, type SavedTime } from '../../../src/core/sign-request/saved-time.js';
import {
  type Field,
  type FieldData,
  type FieldDataId,
  type FieldId,
  FORM_TYPES,
  type Participant,
  type Role,
  SIGN_REQUEST_STATUSES,
  type SignRequest,
} from '../../../src/core/sign-request/sign-request.js';

const id = <T extends number>() => fc.maxSafeInteger().map((n) => n as T);
/** Small ids collide often, which exercises the uniqueness and reference rules. */
const smallId = <T extends number>() => fc.integer({ min: -3, max: 12 }).map((n) => n as T);

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const monthDays = (y: number, m: number) =>
  m === 2 ? (leap(y) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;

/** Any real calendar time of years 0000–9999. */
export const savedTimeArb: fc.Arbitrary<SavedTime> = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
  })
  .map(({ year, month, day, hour, minute, second }) => {
    const d = Math.min(day, monthDays(year, month));
    const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(d, 2)} ${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}`;
    return parseSavedTime(text)._unsafeUnwrap();
  });

const isKnownAnyCase = (s: string) =>
  (KNOWN_PARTICIPANT_STATUSES as readonly string[]).includes(s.toLowerCase());

export const participantStatusArb: fc.Arbitrary<ApiParticipantStatus> = fc.oneof(
  fc.constantFrom(...KNOWN_PARTICIPANT_STATUSES),
  fc
    .oneof(fc.constantFrom('Bounced', 'delivered', ''), fc.string())
    .filter((s) => !isKnownAnyCase(s))
    .map((other) => ({ other })),
);

export const base64Arb = fc
  .uint8Array({ maxLength: 40 })
  .map((bytes) => Buffer.from(bytes).toString('base64'));

export const mediaTypeArb = fc.oneof(
  fc.constantFrom('image/png', 'image/jpeg', 'image/svg+xml', 'application/vnd.a.b-c+json'),
  fc.stringMatching(
    /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,20}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,20}$/,
  ),
);

export const emailArb = fc.oneof(
  fc.constant('<EMAIL>'),
  fc.emailAddress().filter((e) => e.length <= 254),
  fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !/\s/.test(s)),
);

const roleArb: fc.Arbitrary<Role> = fc.record(
  { id: smallId<RoleId>(), name: fc.string(), sequence: fc.nat() },
  { requiredKeys: [], noNullPrototype: true },
);

const fieldDataArb: fc.Arbitrary<FieldData> = fc.record(
  {
    id: id<FieldDataId>(),
    fieldId: smallId<FieldId>(),
    imageContent: base64Arb,
    imageMimetype: mediaTypeArb,
  },
  { requiredKeys: [], noNullPrototype: true },
);

const participantArb: fc.Arbitrary<Participant> = fc.record(
  {
    id: smallId<ParticipantId>(),
    name: fc.string(),
    email: emailArb,
    status: participantStatusArb,
    role: roleArb,
    fieldData: fc.array(fieldDataArb, { maxLength: 3 }),
  },
  { requiredKeys: [], noNullPrototype: true },
);

const fieldArb: fc.Arbitrary<Field> = fc.record(
  {
    id: smallId<FieldId>(),
    roleId: smallId<RoleId>(),
    required: fc.boolean(),
    isMasked: fc.boolean(),
    type: fc.oneof(fc.constant('signature'), fc.string()),
  },
  { requiredKeys: [], noNullPrototype: true },
);

/** Ids unique where present; an id-less element is allowed once (selector `undefined`). */
const uniqueById = <T extends { readonly id?: number }>(arb: fc.Arbitrary<T>) =>
  fc.uniqueArray(arb, { selector: (x) => x.id, maxLength: 4 });

/** Replaces a dangling reference by a known id, or drops it when none is known. */
const repair = <T, K extends keyof T>(record: T, key: K, known: readonly T[K][] | undefined): T => {
  const value = record[key];
  if (known === undefined || value === undefined || known.includes(value)) return record;
  const { [key]: _dropped, ...rest } = record;
  const replacement = known[Math.abs(Number(value)) % Math.max(known.length, 1)];
  return (replacement === undefined ? rest : { ...rest, [key]: replacement }) as T;
};

const completeIds = <T>(ids: readonly (T | undefined)[]): T[] | undefined =>
  ids.every((x) => x !== undefined) ? (ids as T[]) : undefined;

/** Any valid sign request, cross references included. */
export const signRequestArb: fc.Arbitrary<SignRequest> = fc
  .record(
    {
      id: id<SignRequestId>(),
      name: fc.string(),
      status: fc.constantFrom(...SIGN_REQUEST_STATUSES),
      formType: fc.constantFrom(...FORM_TYPES),
      savedTime: savedTimeArb,
      participants: uniqueById(participantArb),
      fields: uniqueById(fieldArb),
    },
    { requiredKeys: ['id', 'name', 'status', 'formType', 'savedTime'], noNullPrototype: true },
  )
  .map((sr): SignRequest => {
    const roleIds = sr.participants && completeIds(sr.participants.map((p) => p.role?.id));
    const fieldIds = sr.fields && completeIds(sr.fields.map((f) => f.id));
    const fields = sr.fields?.map((f) => repair(f, 'roleId', roleIds));
    const participants = sr.participants?.map((p) =>
      p.fieldData === undefined
        ? p
        : { ...p, fieldData: p.fieldData.map((d) => repair(d, 'fieldId', fieldIds)) },
    );
    const { participants: _p, fields: _f, ...rest } = sr;
    return {
      ...rest,
      ...(participants === undefined ? {} : { participants }),
      ...(fields === undefined ? {} : { fields }),
    };
  });
