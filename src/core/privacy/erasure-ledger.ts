/**
 * The erasure ledger: what each `signfold forget` did, kept beside the
 * events (a file `LOG.erasures`, or PostgreSQL's `erasures` table). It holds
 * ids, pseudonyms, counts and times, never a name, so keeping it forever
 * keeps nothing a person asked to have erased. A typed name is kept only as
 * its keyed hash (name-key.ts), which the ledger can compare with a name it
 * is shown but from which the name cannot be read. Two uses:
 * - a forget that names an id or a typed name already forgotten reuses its
 *   pseudonym, and an interrupted forget run again finishes with the
 *   pseudonym it started with;
 * - an event appended later for a forgotten id, or carrying a forgotten
 *   typed name as a person's name, is stored with the name already replaced
 *   ({@link ErasureLedger.eraseOnAppend}), so a late redelivery does not
 *   bring the name back. Pure.
 */
import { err, ok, type Result } from 'neverthrow';
import { wireId } from '../events/wire-id.js';
import { isObservationValue } from '../observations/observation.js';
import type { NamesToErase } from './erase-in-text.js';
import type { ErasureSubject } from './erasure-subject.js';
import { isNameKey, type NameKey, nameKeyInput } from './name-key.js';
import { personNamesIn } from './person-names.js';
import { isPseudonym } from './pseudonym.js';
import { namesHeldBy, recordErasures } from './record-erasures.js';
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
  /**
   * The keyed hashes of the typed names (name-key.ts), by which a later
   * forget of the same name and a later delivery carrying it are recognised.
   * Absent in entries written before signfold kept them.
   */
  readonly nameKeys?: readonly string[];
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
  if (
    entry.nameKeys !== undefined &&
    !(Array.isArray(entry.nameKeys) && entry.nameKeys.every(isNameKey))
  ) {
    return err('"nameKeys" must be a list of keyed hashes');
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

/** Whether `entry` asks appends to recognise names, so the store must have its key. */
export const entryNeedsNameKey = (entry: ErasureEntry): boolean =>
  (entry.nameKeys?.length ?? 0) > 0;

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
  /** The store's keyed hash of names; `undefined` while no forget has typed a name. */
  readonly nameKey: NameKey | undefined;
  private readonly byParticipant = new Map<number, ErasureEntry[]>();
  private readonly byUser = new Map<number, ErasureEntry[]>();
  private readonly byName = new Map<string, ErasureEntry[]>();

  /**
   * Indexes `entries`, oldest first (the order of the ledger). `nameKey` is
   * the store's keyed hash: without it, entries' name hashes cannot be
   * compared, so a store whose ledger has some must pass it (the stores
   * refuse to open without it rather than store a forgotten name again).
   */
  constructor(entries: readonly ErasureEntry[], nameKey?: NameKey) {
    this.entries = entries;
    this.nameKey = nameKey;
    for (const entry of entries) {
      for (const id of entry.participantIds) push(this.byParticipant, id, entry);
      for (const id of entry.userIds) push(this.byUser, id, entry);
      for (const key of entry.nameKeys ?? []) push(this.byName, key, entry);
    }
  }

  /** Whether nothing was ever forgotten: appends then skip the ledger entirely. */
  get isEmpty(): boolean {
    return this.byParticipant.size === 0 && this.byUser.size === 0 && this.byName.size === 0;
  }

  /** The keyed hashes of `names` (none without a key: no name was ever typed to a forget). */
  nameKeysOf(names: readonly string[]): string[] {
    const { nameKey } = this;
    return nameKey === undefined ? [] : [...new Set(names.map((n) => nameKey(nameKeyInput(n))))];
  }

  private entriesNamed(name: string): readonly ErasureEntry[] {
    if (this.byName.size === 0 || this.nameKey === undefined) return [];
    return this.byName.get(this.nameKey(nameKeyInput(name))) ?? [];
  }

  /**
   * The pseudonym a new forget of these ids and names must use: that of an
   * earlier erasure of one of them (in the same company scope; a name by its
   * keyed hash), or of an unfinished
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
    for (const name of subject.names) {
      const entry = this.entriesNamed(name).find(sameScope);
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
   * `eventJson` (the text about to be stored) with the names of forgotten
   * people replaced by their pseudonyms, every other byte kept; the text
   * itself when it concerns no one forgotten or is not a JSON object. A
   * person is recognised by a forgotten id, or by a person-name member whose
   * keyed hash is that of a forgotten typed name; the names so found are
   * erased from the event's titles too.
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
    /** Each entry concerned, with the names of the event it was recognised by (typed or by id). */
    const concerned = new Map<ErasureEntry, { typed: Set<string>; byId: boolean }>();
    const concern = (entry: ErasureEntry): { typed: Set<string>; byId: boolean } => {
      const known = concerned.get(entry) ?? { typed: new Set<string>(), byId: false };
      concerned.set(entry, known);
      return known;
    };
    for (const id of participants)
      for (const e of this.byParticipant.get(id) ?? []) concern(e).byId = true;
    for (const id of users) for (const e of this.byUser.get(id) ?? []) concern(e).byId = true;
    for (const { name } of personNamesIn(value)) {
      for (const e of this.entriesNamed(name)) concern(e).typed.add(name);
    }
    if (concerned.size === 0) return eventJson;
    const replacements = new Map<string, string>();
    for (const [entry, { typed, byId }] of concerned) {
      const subject = { ...entrySubject(entry), names: [...typed] };
      const names: NamesToErase = {
        typed: [...typed],
        found: byId
          ? namesHeldBy(value, subject).filter((n) => n !== '' && !isPseudonym(n) && !typed.has(n))
          : [],
      };
      for (const [path, text] of recordErasures(value, subject, names)) {
        replacements.set(path, text);
      }
    }
    return rewriteJsonStrings(eventJson, replacements).text;
  }
}

const push = <K>(index: Map<K, ErasureEntry[]>, id: K, entry: ErasureEntry): void => {
  const list = index.get(id);
  if (list === undefined) index.set(id, [entry]);
  else if (!list.some((other) => other.erasure === entry.erasure)) list.push(entry);
};
