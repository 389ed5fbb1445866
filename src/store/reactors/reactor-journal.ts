/**
 * The reactor journal beside a log: `LOG.reactors`, NDJSON, a header line
 * then one {@link JournalRecord} per flush. Reading merges the records (the
 * last value of each entry wins); writing appends one line with a single
 * write and an fdatasync; opening for writing first compacts the journal
 * into one record, written to a temporary file, fsynced and renamed over it,
 * so a torn last line left by a crash is gone and the journal stays as big
 * as the state, not its history.
 */
import { constants } from 'node:fs';
import { type FileHandle, open, readFile } from 'node:fs/promises';
import { err, ok, type Result } from 'neverthrow';
import type { EffectEntry, SavedEffects } from '../../core/reactors/reactor-effects.js';
import { replaceFile } from '../replace-file.js';
import {
  JOURNAL_HEADER,
  type JournalRecord,
  journalLine,
  parseJournalRecord,
} from './journal-record.js';
import { type UnreactedChanges, UnreactedPositions } from './unreacted-positions.js';

/** The journal of the log at `logPath`. */
export const journalPathOf = (logPath: string): string => `${logPath}.reactors`;

/** What a journal holds once read: the book to restore and each reactor's checkpoint. */
export interface JournalState {
  readonly book: SavedEffects;
  /** Reactor name → last position reacted to. */
  readonly positions: Readonly<Record<string, number>>;
  /** Reactor name → done effects pruned from the journal (counted in reports). */
  readonly pruned: Readonly<Record<string, number>>;
  /** Reactor name → positions it passed while quarantined and has not reacted to since (whole). */
  readonly unreacted: UnreactedChanges;
}

/** The state of a log no reactor has run on yet. */
export const EMPTY_JOURNAL: JournalState = {
  book: { entries: [], watermarks: {}, nextId: 1 },
  positions: {},
  pruned: {},
  unreacted: {},
};

/** Why a journal could not be read or written; `message` is one line naming the file. */
export interface JournalError {
  readonly kind: 'io' | 'corrupt';
  readonly message: string;
}

const messageOf = (cause: unknown): string =>
  cause instanceof Error ? cause.message : String(cause);

/** Merges the records of a journal's text; the last line may be torn (no newline) and is then dropped. */
export const parseJournal = (path: string, text: string): Result<JournalState, JournalError> => {
  const lines = text.split('\n');
  const complete = text.endsWith('\n');
  const last = lines.pop() ?? '';
  if (!complete && last !== '') lines.push(last);
  const [header, ...records] = lines;
  if (header === undefined) return ok(EMPTY_JOURNAL);
  const corrupt = (line: number, why: string) =>
    err<never, JournalError>({ kind: 'corrupt', message: `${path}:${line}: ${why}` });
  if (header !== JSON.stringify(JOURNAL_HEADER)) {
    return corrupt(1, 'not a signfold reactor journal (bad header line)');
  }
  const entries = new Map<number, EffectEntry>();
  const positions: Record<string, number> = {};
  const pruned: Record<string, number> = {};
  const watermarks: Record<string, number> = {};
  const unreacted: UnreactedChanges[] = [];
  let nextId = 1;
  for (const [index, line] of records.entries()) {
    const parsed = parseJournalRecord(line);
    if (parsed.isErr()) {
      // Only an unterminated last line can be a write cut short by a crash.
      const torn = !complete && index === records.length - 1;
      if (torn) break;
      return corrupt(index + 2, parsed.error);
    }
    const record = parsed.value;
    for (const entry of record.entries) entries.set(entry.id, entry);
    Object.assign(positions, record.positions);
    Object.assign(pruned, record.pruned);
    Object.assign(watermarks, record.watermarks);
    if (record.unreacted !== undefined) unreacted.push(record.unreacted);
    nextId = Math.max(nextId, record.nextId);
  }
  const sorted = [...entries.values()].sort((a, b) => a.id - b.id);
  return ok({
    book: { entries: sorted, watermarks, nextId },
    positions,
    pruned,
    unreacted: UnreactedPositions.fromChanges(unreacted).whole(),
  });
};

/** Reads the journal of `logPath`; a missing journal is {@link EMPTY_JOURNAL}. */
export const readJournal = async (logPath: string): Promise<Result<JournalState, JournalError>> => {
  const path = journalPathOf(logPath);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return ok(EMPTY_JOURNAL);
    return err({ kind: 'io', message: `${path}: ${messageOf(cause)}` });
  }
  return parseJournal(path, text);
};

/** The record holding all of `state`. */
const fullRecord = (state: JournalState): JournalRecord => ({
  nextId: state.book.nextId,
  positions: state.positions,
  watermarks: state.book.watermarks,
  entries: state.book.entries,
  pruned: state.pruned,
  unreacted: state.unreacted,
});

/** An open journal, appended to by its single writer (who holds `LOG.reactors.lock`). */
export interface JournalWriter {
  /** Appends `record` as one line and waits for fdatasync. */
  append(record: JournalRecord): Promise<void>;
  /** Bytes written since the journal was last compacted. */
  readonly appendedBytes: number;
  /** Replaces the journal with one record holding `state` (atomically). */
  compact(state: JournalState): Promise<void>;
  close(): Promise<void>;
}

/** Writes `state` as the whole journal, atomically (`replaceFile`). */
const writeWhole = (path: string, state: JournalState): Promise<void> =>
  replaceFile(path, `${JSON.stringify(JOURNAL_HEADER)}\n${journalLine(fullRecord(state))}`, {
    mode: 0o644,
  });

/**
 * Compacts the journal of `logPath` to `state` and opens it for appending.
 * Only the holder of the reactor lock may call this.
 */
export const openJournalWriter = async (
  logPath: string,
  state: JournalState,
): Promise<Result<JournalWriter, JournalError>> => {
  const path = journalPathOf(logPath);
  let handle: FileHandle;
  try {
    await writeWhole(path, state);
    handle = await open(path, constants.O_WRONLY | constants.O_APPEND);
  } catch (cause) {
    return err({ kind: 'io', message: `${path}: ${messageOf(cause)}` });
  }
  let appendedBytes = 0;
  return ok({
    get appendedBytes() {
      return appendedBytes;
    },
    async append(record) {
      const line = journalLine(record);
      await handle.appendFile(line);
      await handle.datasync();
      appendedBytes += Buffer.byteLength(line);
    },
    async compact(next) {
      await handle.close();
      await writeWhole(path, next);
      handle = await open(path, constants.O_WRONLY | constants.O_APPEND);
      appendedBytes = 0;
    },
    close: () => handle.close(),
  });
};
