/**
 * The lines of a reactor journal (`LOG.reactors`), checked when read back:
 * the journal is signfold's own file, but a disk, an editor or a half-copied
 * file can still hand it back damaged, and a damaged journal must stop the
 * runner with the line it tripped on rather than run effects from garbage.
 */
import { err, ok, type Result } from 'neverthrow';
import type { EffectEntry, EffectState } from '../../core/reactors/reactor-effects.js';
import type { UnreactedChange, UnreactedChanges } from './unreacted-positions.js';

/** The first line of every journal. */
export const JOURNAL_HEADER = { signfold: 'reactor-journal', version: 1 } as const;

/**
 * One journal line after the header: entries changed since the line before
 * (their whole current value), every reactor's checkpoint and watermark, and
 * the next id. A line is written with one `write` and one fdatasync, so it is
 * the unit of atomicity: a torn last line is dropped whole.
 */
export interface JournalRecord {
  readonly nextId: number;
  /** Reactor name → last position reacted to. */
  readonly positions: Readonly<Record<string, number>>;
  /** Reactor name → watermark (ms epoch). */
  readonly watermarks: Readonly<Record<string, number>>;
  readonly entries: readonly EffectEntry[];
  /**
   * Reactor name → effects done and since pruned from the journal (their
   * entries are gone; the count stays for the report). Absent: none.
   */
  readonly pruned?: Readonly<Record<string, number>>;
  /**
   * Reactor name → positions it passed while they were quarantined (`add`),
   * and those it has since reacted to (`remove`). Absent: no change.
   */
  readonly unreacted?: UnreactedChanges;
}

const STATES: readonly EffectState[] = [
  'scheduled',
  'ready',
  'retrying',
  'done',
  'parked',
  'cancelled',
];

const isRecordOf = (value: unknown, check: (member: unknown) => boolean): boolean =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every(check);

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** Entry fields as written: `key` and `dueAt` are absent when undefined. */
const entryOf = (value: unknown): EffectEntry | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const valid =
    isCount(v.id) &&
    typeof v.reactor === 'string' &&
    isCount(v.position) &&
    isCount(v.index) &&
    typeof v.idempotencyKey === 'string' &&
    (v.key === undefined || typeof v.key === 'string') &&
    'effect' in v &&
    (v.dueAt === undefined || Number.isFinite(v.dueAt)) &&
    STATES.includes(v.state as EffectState) &&
    isCount(v.attempts) &&
    typeof v.lastError === 'string' &&
    typeof v.invalid === 'boolean';
  if (!valid) return undefined;
  return {
    id: v.id as number,
    reactor: v.reactor as string,
    position: v.position as number,
    index: v.index as number,
    idempotencyKey: v.idempotencyKey as string,
    key: v.key as string | undefined,
    effect: v.effect as EffectEntry['effect'],
    dueAt: v.dueAt as number | undefined,
    state: v.state as EffectState,
    attempts: v.attempts as number,
    lastError: v.lastError as string,
    invalid: v.invalid as boolean,
  };
};

const isPositions = (value: unknown): boolean =>
  value === undefined || (Array.isArray(value) && value.every(isCount));

const isUnreactedChange = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  isPositions((value as UnreactedChange).add) &&
  isPositions((value as UnreactedChange).remove);

/** Parses one journal line after the header, or says what is wrong with it. */
export const parseJournalRecord = (line: string): Result<JournalRecord, string> => {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return err('not JSON');
  }
  if (typeof value !== 'object' || value === null) return err('not a journal record');
  const v = value as Record<string, unknown>;
  if (!isCount(v.nextId)) return err('nextId is not a count');
  if (!isRecordOf(v.positions, isCount)) return err('positions is not a map of counts');
  if (!isRecordOf(v.watermarks, Number.isFinite)) return err('watermarks is not a map of times');
  if (!Array.isArray(v.entries)) return err('entries is not an array');
  if (v.pruned !== undefined && !isRecordOf(v.pruned, isCount))
    return err('pruned is not a map of counts');
  if (v.unreacted !== undefined && !isRecordOf(v.unreacted, isUnreactedChange))
    return err('unreacted is not a map of position changes');
  const entries: EffectEntry[] = [];
  for (const [index, raw] of v.entries.entries()) {
    const entry = entryOf(raw);
    if (entry === undefined) return err(`entry ${index} is not a journal entry`);
    entries.push(entry);
  }
  return ok({
    nextId: v.nextId,
    positions: v.positions as Record<string, number>,
    watermarks: v.watermarks as Record<string, number>,
    entries,
    ...(v.pruned === undefined ? {} : { pruned: v.pruned as Record<string, number> }),
    ...(v.unreacted === undefined ? {} : { unreacted: v.unreacted as UnreactedChanges }),
  });
};

/** The line of `record`, newline included. */
export const journalLine = (record: JournalRecord): string => `${JSON.stringify(record)}\n`;
