/**
 * The erasure ledger: what each `signfold forget` did, kept beside the
 * events (a file `LOG.erasures`, or PostgreSQL's `erasures` table). It holds
 * ids, pseudonyms, counts and times, never a name, so keeping it forever
 * keeps nothing a person asked to have erased. Two uses:
 * - a forget that names an id already forgotten reuses its pseudonym, and an
 *   interrupted forget run again finishes with the pseudonym it started with;
 * - an event appended later for a forgotten id is stored with the name
 *   already replaced ({@link ErasureLedger.eraseOnAppend}), so a late
 *   redelivery does not bring the name back. Pure.
 */
import { err, ok, type Result } from 'neverthrow';
import { wireId } from '../events/wire-id.js';
import { isObservationValue } from '../observations/observation.js';
import type { ErasureSubject } from './erasure-subject.js';
import { isPseudonym } from './pseudonym.js';
import { recordErasures } from './record-erasures.js';
import { rewriteJsonStrings } from './rewrite-json-strings.js';

/** One line of the ledger: a forget that started, or one that finished. */
export interface ErasureEntry {
  /** The erasure's id; its `started` and `done` entries share it. */
  readonly erasure: string;
  /** `started` is written before anything is rewritten, `done` after everything was. */
  readonly state: 'started' | 'done';
  /** When (ISO 8601, UTC). */
  readonly at: string;
  readonly pseudonym: string;
  readonly participantIds: readonly number[];
  readonly userIds: readonly number[];
  /** How many names were typed (`--name`); the names themselves are never kept. */
  readonly typedNames: number;
  readonly companyId?: number;
  /** What was rewritten, by place (`done` entries): records, bad lines, effects… */
  readonly counts?: Readonly<Record<string, number>>;
}

const ID_LISTS = ['participantIds', 'userIds'] as const;

const idList = (value: unknown): readonly number[] | undefined =>
  Array.isArray(value) && value.every((id) => wireId(id) !== undefined)
    ? (value as number[])
    : undefined;

/**
 * Reads one ledger entry (a parsed JSON value); the error says which member
 * is wrong. A ledger is written only by signfold, so a wrong entry means a
 * damaged or edited file, which the caller refuses to build upon.
 */
export const decodeErasureEntry = (value: unknown): Result<ErasureEntry, string> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return err('an erasure entry is a JSON object');
  }
  const entry = value as Record<string, unknown>;
  if (typeof entry.erasure !== 'string' || entry.erasure === '') {
    return err('"erasure" must be a non-empty string');
  }
  if (entry.state !== 'started' && entry.state !== 'done') {
    return err('"state" must be "started" or "done"');
  }
  if (typeof entry.at !== 'string' || Number.isNaN(Date.parse(entry.at))) {
    return err('"at" must be a date-time');
  }
  if (!isPseudonym(entry.pseudonym)) return err('"pseudonym" is not a pseudonym');
  for (const list of ID_LISTS) {
    if (idList(entry[list]) === undefined) return err(`"${list}" must be a list of ids`);
  }
  if (!Number.isSafeInteger(entry.typedNames) || (entry.typedNames as number) < 0) {
    return err('"typedNames" must be a count');
  }
  if (entry.companyId !== undefined && wireId(entry.companyId) === undefined) {
    return err('"companyId" must be an id');
  }
  return ok(value as ErasureEntry);
};

/** The subject an entry stands for, without names (the ledger has none). */
export const entrySubject = (entry: ErasureEntry): ErasureSubject => ({
  participantIds: entry.participantIds,
  userIds: entry.userIds,
  names: [],
  pseudonym: entry.pseudonym,
  ...(entry.companyId === undefined ? {} : { companyId: entry.companyId }),
});

const NO_NAMES = { typed: [], found: [] } as const;

const sameIds = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** The ids a record value names as a participant or a user. */
const idsIn = (value: Record<string, unknown>): { participants: number[]; users: number[] } => {
  const participants: number[] = [];
  const users: number[] = [];
  const add = (list: number[], id: unknown): void => {
    const read = wireId(id);
    if (read !== undefined) list.push(read);
  };
  add(participants, value.participantId);
  add(users, value.senderId);
  add(users, value.ownerId);
  if (isObservationValue(value)) {
    const document = value.signRequest as { participants?: unknown } | undefined;
    const list = Array.isArray(document?.participants) ? document.participants : [];
    for (const participant of list) add(participants, (participant as { id?: unknown })?.id);
  }
  return { participants, users };
};

/** The ledger's entries, indexed for the two questions it answers. */
export class ErasureLedger {
  readonly entries: readonly ErasureEntry[];
  private readonly byParticipant = new Map<number, ErasureEntry[]>();
  private readonly byUser = new Map<number, ErasureEntry[]>();

  /** Indexes `entries`, oldest first (the order of the ledger). */
  constructor(entries: readonly ErasureEntry[]) {
    this.entries = entries;
    for (const entry of entries) {
      for (const id of entry.participantIds) push(this.byParticipant, id, entry);
      for (const id of entry.userIds) push(this.byUser, id, entry);
    }
  }

  /** Whether no id was ever forgotten: appends then skip the ledger entirely. */
  get isEmpty(): boolean {
    return this.byParticipant.size === 0 && this.byUser.size === 0;
  }

  /**
   * The pseudonym a new forget of these ids must use: that of an earlier
   * erasure of one of them (in the same company scope), or of an unfinished
   * erasure of exactly the same subject (run again after a crash); otherwise
   * `undefined` (a new person: make a new one).
   */
  pseudonymFor(subject: Omit<ErasureSubject, 'pseudonym'>): string | undefined {
    const sameScope = (entry: ErasureEntry): boolean => entry.companyId === subject.companyId;
    for (const id of subject.participantIds) {
      const entry = this.byParticipant.get(id)?.find(sameScope);
      if (entry !== undefined) return entry.pseudonym;
    }
    for (const id of subject.userIds) {
      const entry = this.byUser.get(id)?.find(sameScope);
      if (entry !== undefined) return entry.pseudonym;
    }
    const finished = new Set(this.entries.filter((e) => e.state === 'done').map((e) => e.erasure));
    const unfinished = this.entries.findLast(
      (entry) =>
        entry.state === 'started' &&
        !finished.has(entry.erasure) &&
        sameScope(entry) &&
        entry.typedNames === subject.names.length &&
        sameIds(entry.participantIds, subject.participantIds) &&
        sameIds(entry.userIds, subject.userIds),
    );
    return unfinished?.pseudonym;
  }

  /**
   * `eventJson` (the text about to be stored) with the names of forgotten ids
   * replaced by their pseudonyms, every other byte kept; the text itself when
   * it names no forgotten id or is not a JSON object. Names inside a title
   * (`signRequestName`) are not found here: the ledger holds no name to look for.
   */
  eraseOnAppend(eventJson: string): string {
    if (this.isEmpty) return eventJson;
    let value: unknown;
    try {
      value = JSON.parse(eventJson);
    } catch {
      return eventJson;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return eventJson;
    const { participants, users } = idsIn(value as Record<string, unknown>);
    const entries = new Set<ErasureEntry>();
    for (const id of participants) for (const e of this.byParticipant.get(id) ?? []) entries.add(e);
    for (const id of users) for (const e of this.byUser.get(id) ?? []) entries.add(e);
    if (entries.size === 0) return eventJson;
    const replacements = new Map<string, string>();
    for (const entry of entries) {
      for (const [path, text] of recordErasures(value, entrySubject(entry), NO_NAMES)) {
        replacements.set(path, text);
      }
    }
    return rewriteJsonStrings(eventJson, replacements).text;
  }
}

const push = (index: Map<number, ErasureEntry[]>, id: number, entry: ErasureEntry): void => {
  const list = index.get(id);
  if (list === undefined) index.set(id, [entry]);
  else if (!list.some((other) => other.erasure === entry.erasure)) list.push(entry);
};
