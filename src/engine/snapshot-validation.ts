import { isEventType } from '../core/events/event-members.js';
import { OBSERVATION_ENTRY, OLD_OBSERVATION_ENTRY } from './audit-trail.js';

/**
 * Checks the contents of a snapshot's records before they are trusted: a
 * snapshot is a file on disk, and a corrupted or hand-edited one must be
 * refused with the path of the problem, not crash the engine later.
 */
type Check = (value: unknown) => boolean;

const isId: Check = (v) => typeof v === 'number' && Number.isSafeInteger(v);
const isCount: Check = (v) => isId(v) && (v as number) >= 0;
const isString: Check = (v) => typeof v === 'string';
const isBoolean: Check = (v) => typeof v === 'boolean';
const oneOf =
  (...values: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v);
const orNull =
  (check: Check): Check =>
  (v) =>
    v === null || check(v);

/** Required members first, then optional ones (checked when present). */
interface RecordShape {
  readonly required: Readonly<Record<string, Check>>;
  readonly optional?: Readonly<Record<string, Check>>;
}

const TEMPLATE: RecordShape = {
  required: {
    id: isId,
    companyId: isId,
    name: isString,
    ownerId: isId,
    ownerName: isString,
    status: oneOf('active', 'inactive', 'deleted'),
  },
};

const SIGN_REQUEST: RecordShape = {
  required: {
    id: isId,
    companyId: orNull(isId),
    name: isString,
    status: oneOf('draft', 'sent', 'completed', 'declined'),
    deleted: isBoolean,
  },
  optional: {
    ownerId: isId,
    ownerName: isString,
    senderId: isId,
    senderName: isString,
    templateId: isId,
    templateName: isString,
    formType: oneOf('Form', 'Document'),
    savedTime: isString,
    fields: Array.isArray,
    // Absent in a version-2 snapshot (restored as null).
    sentAt: orNull(isString),
    completedAt: orNull(isString),
    declinedAt: orNull(isString),
    deletedAt: orNull(isString),
    outcomeFrom: orNull(oneOf('event', 'observation')),
    lastEventAt: orNull(isString),
  },
};

const PARTICIPANT: RecordShape = {
  required: {
    signRequestId: isId,
    id: isId,
    companyId: orNull(isId),
    name: isString,
    status: oneOf('sent', 'viewed', 'signed', 'declined'),
    viewCount: isCount,
    downloadCount: isCount,
  },
  optional: {
    roleId: isId,
    roleName: isString,
    sequence: isCount,
    email: isString,
    sentAt: orNull(isString),
    viewedAt: orNull(isString),
    signedAt: orNull(isString),
    declinedAt: orNull(isString),
    outcomeFrom: orNull(oneOf('event', 'observation')),
    lastEventAt: orNull(isString),
  },
};

const QUARANTINE_ENTRY: RecordShape = {
  required: { position: isId, raw: isString, reason: (v) => isObject(v) },
  optional: { line: orNull(isId) },
};

const STATS: RecordShape = {
  required: {
    applied: isCount,
    noOps: isCount,
    conflicts: isCount,
    invalid: isCount,
    alreadyApplied: isCount,
  },
};

const AUDIT_ENTRY: RecordShape = {
  required: {
    position: isId,
    type: (v) =>
      typeof v === 'string' &&
      (isEventType(v) || v === OBSERVATION_ENTRY || v === OLD_OBSERVATION_ENTRY),
    outcome: oneOf(
      'applied',
      'no-op',
      'invalid-transition',
      'deleted',
      'company-mismatch',
      'reference-mismatch',
    ),
  },
  optional: {
    participantId: orNull(isId),
    receivedAt: orNull(isString),
    differences: (v) => Array.isArray(v) && v.every(isString),
    upcastBy: (v) => Array.isArray(v) && v.length > 0 && v.every(isString),
  },
};

const FOLDED_WITH: RecordShape = {
  required: {
    rules: isCount,
    strict: isBoolean,
    upcasters: (v) =>
      Array.isArray(v) && v.every((u) => isObject(u) && isString(u.name) && isString(u.source)),
  },
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first problem of one record, as a path and message, or `undefined`. */
const recordProblem = (value: unknown, shape: RecordShape, path: string): string | undefined => {
  if (!isObject(value)) return `${path} must be an object`;
  for (const [name, check] of Object.entries(shape.required)) {
    if (!check(value[name])) return `${path}.${name} is missing or invalid`;
  }
  for (const [name, check] of Object.entries(shape.optional ?? {})) {
    const member = value[name];
    if (member !== undefined && !check(member)) return `${path}.${name} is invalid`;
  }
  return undefined;
};

const listProblem = (value: unknown, shape: RecordShape, path: string): string | undefined => {
  if (!Array.isArray(value)) return `${path} must be a list`;
  for (let i = 0; i < value.length; i += 1) {
    const problem = recordProblem(value[i], shape, `${path}[${i}]`);
    if (problem !== undefined) return problem;
  }
  return undefined;
};

const trailsProblem = (value: unknown, path: string): string | undefined => {
  if (!Array.isArray(value)) return `${path} must be a list`;
  for (let i = 0; i < value.length; i += 1) {
    const pair: unknown = value[i];
    if (!Array.isArray(pair) || !isId(pair[0])) return `${path}[${i}] must be [id, entries]`;
    const problem = listProblem(pair[1], AUDIT_ENTRY, `${path}[${i}][1]`);
    if (problem !== undefined) return problem;
  }
  return undefined;
};

/**
 * The first problem in a snapshot's records, quarantine and audit trails (as
 * `signRequests[3].status is missing or invalid`), or `undefined` if sound.
 */
export const snapshotContentProblem = (
  s: Readonly<Record<string, unknown>>,
): string | undefined => {
  const audit = s.audit;
  return (
    listProblem(s.templates, TEMPLATE, 'templates') ??
    listProblem(s.signRequests, SIGN_REQUEST, 'signRequests') ??
    listProblem(s.participants, PARTICIPANT, 'participants') ??
    listProblem(s.quarantine, QUARANTINE_ENTRY, 'quarantine') ??
    (s.stats === undefined ? undefined : recordProblem(s.stats, STATS, 'stats')) ??
    (s.foldedWith === undefined
      ? undefined
      : recordProblem(s.foldedWith, FOLDED_WITH, 'foldedWith')) ??
    (audit === null
      ? undefined
      : isObject(audit)
        ? (trailsProblem(audit.signRequests, 'audit.signRequests') ??
          trailsProblem(audit.templates, 'audit.templates'))
        : 'audit must be null or audit trails')
  );
};
