/**
 * Every person name a record holds, with the participant id it belongs to:
 * what the erasure ledger compares with the keyed hashes of forgotten names
 * when an event is appended, and what a forget by participant id reads to
 * tell which other participant ids carry the same name. The members are
 * those `recordErasures` replaces (see record-erasures.ts). Pure.
 */
import { WIRE_PARTICIPANT_NAME } from '../events/event-members.js';
import { wireId } from '../events/wire-id.js';
import { isObservationValue } from '../observations/observation.js';

/** A person name found in a record. */
export interface PersonName {
  readonly name: string;
  /** The participant whose name it is; absent for a sender's or an owner's name. */
  readonly participantId?: number;
}

type Members = Readonly<Record<string, unknown>>;

const asMembers = (value: unknown): Members | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Members)
    : undefined;

const named = (name: unknown, id: unknown): PersonName[] => {
  if (typeof name !== 'string' || name === '') return [];
  const participantId = wireId(id);
  return [participantId === undefined ? { name } : { name, participantId }];
};

/**
 * The person names of `value` (a record's parsed JSON: an event, valid or
 * not, or an observation): participant names with their ids, sender and
 * owner names without. Empty strings are no names.
 */
export const personNamesIn = (value: unknown): PersonName[] => {
  const members = asMembers(value);
  if (members === undefined) return [];
  if (isObservationValue(value)) {
    const participants = asMembers(members.signRequest)?.participants;
    if (!Array.isArray(participants)) return [];
    return participants.flatMap((element) => {
      const participant = asMembers(element);
      return participant === undefined ? [] : named(participant.name, participant.id);
    });
  }
  const own = (member: string): unknown =>
    Object.hasOwn(members, member) ? members[member] : undefined;
  return [
    ...named(own('participantName'), members.participantId),
    ...named(own(WIRE_PARTICIPANT_NAME), members.participantId),
    ...named(own('senderName'), undefined),
    ...named(own('ownerName'), undefined),
  ];
};

/**
 * The participant ids of `value` whose name equals one of `names` (after
 * NFC) and that are not in `except`, in the company `companyId` when given
 * (a record that names no company counts).
 */
export const participantsNamed = (
  value: unknown,
  names: readonly string[],
  except: readonly number[],
  companyId?: number,
): number[] => {
  const members = asMembers(value);
  if (members === undefined || names.length === 0) return [];
  if (
    companyId !== undefined &&
    Object.hasOwn(members, 'companyId') &&
    wireId(members.companyId) !== companyId
  ) {
    return [];
  }
  const wanted = new Set(names.map((name) => name.normalize('NFC')));
  const ids: number[] = [];
  for (const { name, participantId } of personNamesIn(value)) {
    if (participantId === undefined || except.includes(participantId)) continue;
    if (wanted.has(name.normalize('NFC')) && !ids.includes(participantId)) ids.push(participantId);
  }
  return ids;
};
