/**
 * Where a person's name sits in a stored record, and what replaces it: the
 * one rule of erasure, which the file log, PostgreSQL and the checks of the
 * tests all apply. Pure.
 *
 * In an event (valid or not, as long as it is a JSON object):
 * - `participantName` and `partcipantName` when `participantId` is a
 *   forgotten participant, `senderName` when `senderId` and `ownerName` when
 *   `ownerId` is a forgotten user, or any of the four when its value equals a
 *   typed name (after NFC): replaced by the pseudonym;
 * - `signRequestName` and `templateName`, which often carry a person's name
 *   ("NDA – Ann Smith"): each occurrence of a name being erased inside them is
 *   replaced, the rest of the text kept.
 *
 * In an observation record (a sign-request document the service answered):
 * for each participant whose `id` is forgotten (or whose `name` equals a
 * typed name), `name` becomes the pseudonym, `email` an address at
 * `erased.invalid` and the `imageContent` of its `fieldData` empty (the
 * signature is personal data too); the document's `name` is treated as
 * `signRequestName`.
 *
 * Ids are read as the decoder reads them (`wireId`): an id that is not a
 * safe integer matches no forgotten id.
 */
import { WIRE_PARTICIPANT_NAME } from '../events/event-members.js';
import { wireId } from '../events/wire-id.js';
import { isObservationValue } from '../observations/observation.js';
import { eraseInText, type NamesToErase } from './erase-in-text.js';
import type { ErasureSubject } from './erasure-subject.js';
import { type JsonPath, jsonPathKey } from './rewrite-json-strings.js';

type Members = Readonly<Record<string, unknown>>;

/** A person-name member and the id member that says whose name it is. */
const PERSON_NAMES = [
  { member: 'participantName', id: 'participantId', of: 'participant' },
  { member: WIRE_PARTICIPANT_NAME, id: 'participantId', of: 'participant' },
  { member: 'senderName', id: 'senderId', of: 'user' },
  { member: 'ownerName', id: 'ownerId', of: 'user' },
] as const;

/** Members that may carry a person's name inside other text. */
const TITLES = ['signRequestName', 'templateName'] as const;

const asMembers = (value: unknown): Members | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Members)
    : undefined;

const inCompany = (members: Members, subject: ErasureSubject): boolean =>
  subject.companyId === undefined ||
  !Object.hasOwn(members, 'companyId') ||
  wireId(members.companyId) === subject.companyId;

const typedName = (value: string, subject: ErasureSubject): boolean => {
  if (subject.names.length === 0) return false;
  const normal = value.normalize('NFC');
  return subject.names.some((name) => name.normalize('NFC') === normal);
};

const forgottenId = (value: unknown, ids: readonly number[]): boolean => {
  const id = wireId(value);
  return id !== undefined && ids.includes(id);
};

/** A person name found at `path`, with the value it holds. */
interface PersonName {
  readonly path: JsonPath;
  readonly value: string;
}

const eventPersonNames = (
  members: Members,
  subject: ErasureSubject,
  prefix: JsonPath,
): PersonName[] => {
  const found: PersonName[] = [];
  for (const { member, id, of } of PERSON_NAMES) {
    const value = members[member];
    if (typeof value !== 'string' || !Object.hasOwn(members, member)) continue;
    const ids = of === 'participant' ? subject.participantIds : subject.userIds;
    if (forgottenId(members[id], ids) || typedName(value, subject)) {
      found.push({ path: [...prefix, member], value });
    }
  }
  return found;
};

const participantsOf = (members: Members): readonly unknown[] => {
  const document = asMembers(members.signRequest);
  const participants = document?.participants;
  return Array.isArray(participants) ? participants : [];
};

/** Participants of an observation's document that are forgotten, by index. */
const forgottenParticipants = (
  members: Members,
  subject: ErasureSubject,
): { readonly index: number; readonly participant: Members }[] => {
  const found: { index: number; participant: Members }[] = [];
  participantsOf(members).forEach((element, index) => {
    const participant = asMembers(element);
    if (participant === undefined) return;
    const name = participant.name;
    if (
      forgottenId(participant.id, subject.participantIds) ||
      (typeof name === 'string' && typedName(name, subject))
    ) {
      found.push({ index, participant });
    }
  });
  return found;
};

/**
 * The person names `value` (a record's parsed JSON) holds for `subject`: the
 * values {@link recordErasures} replaces by the pseudonym. A forget reads
 * them from every record first, so it can then erase them where they were
 * copied as plain text (bad lines, effects, titles).
 */
export const namesHeldBy = (value: unknown, subject: ErasureSubject): string[] => {
  const members = asMembers(value);
  if (members === undefined || !inCompany(members, subject)) return [];
  if (isObservationValue(value)) {
    return forgottenParticipants(members, subject)
      .map(({ participant }) => participant.name)
      .filter((name): name is string => typeof name === 'string');
  }
  return eventPersonNames(members, subject, []).map(({ value: name }) => name);
};

/**
 * What to replace in `value` (a record's parsed JSON, found at `prefix` in
 * its stored text: `['event']` in an envelope) to forget `subject`, as a map
 * for `rewriteJsonStrings`: path key to new text. `names` are the names being
 * erased (typed, and found by {@link namesHeldBy} across the whole log), for
 * the titles that may contain one. Empty when the record holds nothing of
 * the subject; a value already forgotten yields nothing new.
 */
export const recordErasures = (
  value: unknown,
  subject: ErasureSubject,
  names: NamesToErase,
  prefix: JsonPath = [],
): Map<string, string> => {
  const replacements = new Map<string, string>();
  const members = asMembers(value);
  if (members === undefined || !inCompany(members, subject)) return replacements;
  const { pseudonym } = subject;
  const put = (path: JsonPath, before: unknown, after: string): void => {
    if (before !== after) replacements.set(jsonPathKey(path), after);
  };
  const title = (path: JsonPath, text: unknown): void => {
    if (typeof text !== 'string') return;
    const erased = eraseInText(text, names, pseudonym);
    if (erased.count > 0) put(path, text, erased.text);
  };
  if (isObservationValue(value)) {
    const document = asMembers(members.signRequest);
    title([...prefix, 'signRequest', 'name'], document?.name);
    for (const { index, participant } of forgottenParticipants(members, subject)) {
      const at = [...prefix, 'signRequest', 'participants', index];
      if (typeof participant.name === 'string') put([...at, 'name'], participant.name, pseudonym);
      if (typeof participant.email === 'string') {
        put([...at, 'email'], participant.email, `${pseudonym}@erased.invalid`);
      }
      const data = participant.fieldData;
      if (!Array.isArray(data)) continue;
      data.forEach((element, dataIndex) => {
        const image = asMembers(element)?.imageContent;
        if (typeof image === 'string')
          put([...at, 'fieldData', dataIndex, 'imageContent'], image, '');
      });
    }
    return replacements;
  }
  for (const { path, value: name } of eventPersonNames(members, subject, prefix)) {
    put(path, name, pseudonym);
  }
  for (const member of TITLES) title([...prefix, member], members[member]);
  return replacements;
};
