/**
 * `forget` on a file log: erases one person's names from the log, its
 * reactor journal, its torn tails and its snapshots, under the writer lock
 * and the reactor lock, and records the erasure in `LOG.erasures`
 * (docs/privacy.md#file-logs).
 *
 * Crash safety: every file is rewritten beside itself, fsynced and renamed
 * over the old one, so each is whole, old or new. The log, the only place
 * the names can be read back from by id, is renamed last: an interrupted
 * forget run again finds the names in it, reuses the pseudonym its `started`
 * ledger entry kept, and finishes. The writer lock keeps every appender out,
 * so no acknowledged event can be lost between the read and the rename.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, open, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { err, ok, type Result } from 'neverthrow';
import { eraseInJson } from '../../core/privacy/erase-in-json.js';
import { type NamesToErase, storedForms } from '../../core/privacy/erase-in-text.js';
import { type ErasureEntry, ErasureLedger } from '../../core/privacy/erasure-ledger.js';
import type { ErasureSubject } from '../../core/privacy/erasure-subject.js';
import { isPseudonym, newPseudonym } from '../../core/privacy/pseudonym.js';
import type { ForgetReport, ForgetRequest } from '../../engine/forget-report.js';
import { createProjector } from '../../engine/projector.js';
import { SNAPSHOT_FORMAT, type Snapshot, takeSnapshot } from '../../engine/snapshot.js';
import { readFileEventLog } from '../file-record-stream.js';
import { lockedError } from '../locked-error.js';
import type { LogError } from '../log-error.js';
import { journalPathOf, openJournalWriter, readJournal } from '../reactors/reactor-journal.js';
import { acquireReactorLock } from '../reactors/reactor-lock.js';
import {
  isReplacementTemporary,
  type Replacement,
  replaceFile,
  startReplacement,
} from '../replace-file.js';
import { readSnapshotFile, writeSnapshotFile } from '../snapshot-file.js';
import { acquireWriterLock, type HeldLock, lockTiming } from '../writer-lock.js';
import { ensureNameKeyFile } from './erasure-key-file.js';
import { appendErasureEntry, readLedgerFile } from './erasure-ledger-file.js';
import {
  forgetLine,
  type LineChange,
  type LinePlan,
  linePlan,
  namesInLine,
  participantsInLine,
} from './forget-line.js';

/** Why a forget could not run; nothing was rewritten unless the message says so. */
export interface ForgetFileError {
  readonly kind: 'locked' | 'io' | 'ledger';
  readonly message: string;
  /** When another process holds the log's writer lock: its refusal (who holds it). */
  readonly writerLocked?: LogError;
}

const CHUNK_BYTES = 1 << 20;
/** Permission bits of the files forget rewrites, before the umask. */
const FILE_MODE = 0o644;
const NEWLINE = 0x0a;

const messageOf = (cause: unknown): string =>
  cause instanceof Error ? cause.message : String(cause);

/** The bytes of `path`, in chunks read one after another (each a buffer of its own). */
async function* chunksOf(path: string): AsyncGenerator<Buffer> {
  const handle = await open(path, 'r');
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) return;
      yield chunk.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** The lines of `path` (without their line feed), and whether each had one. */
async function* linesOf(path: string): AsyncGenerator<{ line: Buffer; ended: boolean }> {
  let rest = Buffer.alloc(0);
  for await (const chunk of chunksOf(path)) {
    const data = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
    let start = 0;
    for (let end = data.indexOf(NEWLINE); end >= 0; end = data.indexOf(NEWLINE, start)) {
      yield { line: data.subarray(start, end), ended: true };
      start = end + 1;
    }
    // A copy: the unfinished line alone is kept, not the whole chunk it sits in.
    rest = Buffer.from(data.subarray(start));
  }
  if (rest.length > 0) yield { line: rest, ended: false };
}

const LINE_FEED = Buffer.from('\n');

/** Counts of one pass over a file's lines. */
interface LineCounts {
  records: number;
  badLines: number;
}

/**
 * Runs `plan` over the lines of `source`, writing every line (changed or
 * not) to `target` unless it is `undefined` (a dry run, or a file that turns
 * out to hold nothing).
 */
const rewriteLines = async (
  source: string,
  plan: LinePlan,
  target: Pick<Replacement, 'write'> | undefined,
): Promise<LineCounts> => {
  const counts: LineCounts = { records: 0, badLines: 0 };
  let number = 0;
  for await (const { line, ended } of linesOf(source)) {
    number += 1;
    const { bytes, change } = forgetLine(line, number, plan);
    count(counts, change);
    if (target !== undefined) {
      await target.write(bytes);
      if (ended) await target.write(LINE_FEED);
    }
  }
  return counts;
};

const count = (counts: LineCounts, change: LineChange | undefined): void => {
  if (change === 'record') counts.records += 1;
  else if (change === 'bad line') counts.badLines += 1;
};

/** The names the log holds for the subject's ids, gathered in a first pass. */
const gatherNames = async (logPath: string, plan: LinePlan): Promise<string[]> => {
  const found = new Set<string>();
  if (plan.idNeedles.length === 0) return [];
  let number = 0;
  for await (const { line } of linesOf(logPath)) {
    number += 1;
    for (const name of namesInLine(line, number, plan)) {
      if (name !== '' && !isPseudonym(name)) found.add(name);
    }
  }
  return [...found];
};

/**
 * The participant ids, outside the subject's, that the log stores with one
 * of `names` (the names found for the subject's ids), in ascending order.
 */
const sameNameParticipants = async (
  logPath: string,
  plan: LinePlan,
  names: readonly string[],
): Promise<number[]> => {
  if (names.length === 0) return [];
  const forms = storedForms(names).map((form) => Buffer.from(form));
  const found = new Set<number>();
  let number = 0;
  for await (const { line } of linesOf(logPath)) {
    number += 1;
    for (const id of participantsInLine(line, number, plan, names, forms)) found.add(id);
  }
  return [...found].sort((a, b) => a - b);
};

/** Whether the file at `path` holds any of `forms`, read in chunks with an overlap. */
const fileHolds = async (path: string, forms: readonly Buffer[]): Promise<boolean> => {
  if (forms.length === 0) return false;
  const overlap = Math.max(...forms.map((form) => form.length)) - 1;
  let tail = Buffer.alloc(0);
  for await (const chunk of chunksOf(path)) {
    const data = Buffer.concat([tail, chunk]);
    if (forms.some((form) => data.includes(form))) return true;
    tail = Buffer.from(data.subarray(Math.max(0, data.length - overlap)));
  }
  return false;
};

/** The regular files of the log's directory, by path. */
const filesBeside = async (logPath: string): Promise<string[]> => {
  const directory = dirname(logPath);
  const entries = await readdir(directory, { withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(directory, entry.name));
};

const SNAPSHOT_START = `{"format":${JSON.stringify(SNAPSHOT_FORMAT)}`;

const isSnapshotFile = async (path: string): Promise<boolean> => {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(SNAPSHOT_START.length);
    await handle.read(head, 0, head.length, 0);
    return head.toString('utf8') === SNAPSHOT_START;
  } finally {
    await handle.close();
  }
};

/** The fold of `logPath` that a snapshot like `like` was taken from: same checkpoint, audit and mode. */
const foldLike = async (logPath: string, like: Snapshot): Promise<Snapshot | undefined> => {
  const projector = createProjector({ audit: like.audit !== null, strict: like.foldedWith.strict });
  const replayed = await projector.replay(
    { read: (options) => readFileEventLog(logPath, options) },
    { until: like.checkpoint },
  );
  return replayed.isOk() ? takeSnapshot(projector) : undefined;
};

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** What became of one snapshot that held a name. */
type SnapshotOutcome = 'rewritten' | 'already' | 'foreign';

/**
 * Rewrites the snapshot at `path` as the fold of the rewritten log
 * `newLog` up to its checkpoint, if it is a snapshot of this log (it equals
 * the fold of `oldLog`) that this build can fold again (no upcasters, these
 * fold rules). One that already equals the fold of `newLog` (an interrupted
 * forget got that far) is left as it is. Any other is `foreign`: forget
 * cannot make it again and reports it.
 */
const rewriteSnapshot = async (
  path: string,
  oldLog: string,
  newLog: string,
): Promise<SnapshotOutcome> => {
  const read = await readSnapshotFile(path);
  if (read.isErr()) return 'foreign';
  const value = read.value as Snapshot;
  const folded = value.foldedWith;
  if (folded === undefined || folded.upcasters.length > 0) return 'foreign';
  const fresh = await foldLike(newLog, value);
  if (fresh !== undefined && sameJson(fresh, value)) return 'already';
  const old = await foldLike(oldLog, value);
  if (fresh === undefined || old === undefined || !sameJson(old, value)) return 'foreign';
  const written = await writeSnapshotFile(path, fresh);
  if (written.isErr()) throw new Error(written.error.message);
  return 'rewritten';
};

/** Rewrites the reactor journal without the names; how many occurrences it held (0: untouched). */
const rewriteJournal = async (
  logPath: string,
  names: NamesToErase,
  pseudonym: string,
  forms: readonly Buffer[],
  dryRun: boolean,
): Promise<number> => {
  const path = journalPathOf(logPath);
  const exists = await access(path).then(
    () => true,
    () => false,
  );
  if (!exists || !(await fileHolds(path, forms))) return 0;
  const journal = await readJournal(logPath);
  if (journal.isErr()) throw new Error(journal.error.message);
  const state = journal.value;
  const erased = eraseInJson(state.book.entries, names, pseudonym);
  if (dryRun) return Math.max(1, erased.count);
  // Compacting writes the whole state as one line (temporary file, rename): every
  // older line, and the names in effects it superseded, goes with it.
  const writer = await openJournalWriter(logPath, {
    ...state,
    book: { ...state.book, entries: erased.value as typeof state.book.entries },
  });
  if (writer.isErr()) throw new Error(writer.error.message);
  await writer.value.close();
  return Math.max(1, erased.count);
};

/** Rewrites a torn tail set aside beside the log (`LOG.torn-…`), as bad-line text. */
const rewriteWholeFile = async (path: string, plan: LinePlan, dryRun: boolean): Promise<number> => {
  if (!(await fileHolds(path, plan.forms))) return 0;
  if (dryRun) return 1;
  const needles = { ...plan, needles: plan.forms };
  await replaceFile(
    path,
    async (write) => {
      // Line numbers past 1: a torn tail is never the file's first line, so no BOM is stripped.
      let number = 1;
      for await (const { line, ended } of linesOf(path)) {
        number += 1;
        await write(forgetLine(line, number, needles).bytes);
        if (ended) await write(LINE_FEED);
      }
    },
    { mode: FILE_MODE },
  );
  return 1;
};

/** Who asks for the locks, and what helps when they are taken. */
const FORGET_SEEKER = {
  command: 'signfold forget',
  remedy:
    "forget rewrites the whole log, so it needs the log to itself: stop 'signfold serve --log' (and 'signfold react') on it, run forget, start them again (a sender retries the deliveries refused meanwhile, and later ones for the person are stored with the pseudonym); '--dry-run' runs beside them",
} as const;

const takeLocks = async (
  logPath: string,
): Promise<Result<readonly HeldLock[], ForgetFileError>> => {
  const timing = lockTiming(undefined);
  const lockPath = `${logPath}.lock`;
  const writer = await acquireWriterLock(lockPath, timing);
  if ('refused' in writer) {
    const { refused } = writer;
    if (refused.kind === 'io') {
      return err({ kind: 'io', message: `${lockPath}: ${messageOf(refused.cause)}` });
    }
    const locked = lockedError(logPath, lockPath, refused, timing.staleAfterMs, FORGET_SEEKER);
    return err({ kind: 'locked', message: locked.message, writerLocked: locked });
  }
  const reactors = await acquireReactorLock(logPath);
  if (reactors.isErr()) {
    await writer.held.release();
    const { kind, message } = reactors.error;
    return err({
      kind,
      message: kind === 'locked' ? `${FORGET_SEEKER.command} cannot write: ${message}` : message,
    });
  }
  return ok([writer.held, reactors.value]);
};

/** The pseudonym of this forget: that of an earlier erasure of the person, or a new one. */
const pseudonymOf = (
  ledger: ErasureLedger,
  request: ForgetRequest,
): { readonly pseudonym: string; readonly reused: boolean } => {
  const earlier = ledger.pseudonymFor(request);
  return earlier === undefined
    ? { pseudonym: newPseudonym(), reused: false }
    : { pseudonym: earlier, reused: true };
};

/**
 * Forgets the person `request` names in the file log at `path` (see the
 * module comment), or with `dryRun` counts what would change and changes
 * nothing (and takes no lock). Refused while a writer or `react` holds the
 * log. `remaining` lists files of the log's directory that still hold one of
 * the names and that forget does not own (a report, an export, a snapshot
 * made with upcasters, a copy).
 */
export const forgetFileLog = async (
  path: string,
  request: ForgetRequest,
): Promise<Result<ForgetReport, ForgetFileError>> => {
  try {
    await access(path, constants.R_OK);
  } catch (cause) {
    return err({ kind: 'io', message: `${path}: ${messageOf(cause)}` });
  }
  const locks = request.dryRun
    ? ok<readonly HeldLock[], ForgetFileError>([])
    : await takeLocks(path);
  if (locks.isErr()) return err(locks.error);
  try {
    // Read under the lock: a forget that finished meanwhile has left its entries.
    const ledger = await readLedgerFile(path);
    if (ledger.isErr()) return err(ledger.error);
    return ok(await forgetUnderLocks(path, request, ledger.value));
  } catch (cause) {
    return err({
      kind: 'io',
      message: `forget of ${path} stopped: ${messageOf(cause)}; run it again to finish`,
    });
  } finally {
    for (const lock of [...locks.value].reverse()) await lock.release();
  }
};

/**
 * {@link forgetFileLog} run by the process that holds the log's writer lock
 * (`signfold serve --log`, with its appends held back: see
 * `ExclusiveFileEventLog.exclusive`): the same forget, which takes the
 * reactor lock only. Never a dry run (that needs no lock, and no holder).
 */
export const forgetHeldFileLog = async (
  path: string,
  request: ForgetRequest,
): Promise<Result<ForgetReport, ForgetFileError>> => {
  const reactors = await acquireReactorLock(path);
  if (reactors.isErr()) {
    const { kind, message } = reactors.error;
    return err({
      kind,
      message: kind === 'locked' ? `${FORGET_SEEKER.command} cannot write: ${message}` : message,
    });
  }
  try {
    const ledger = await readLedgerFile(path);
    if (ledger.isErr()) return err(ledger.error);
    return ok(await forgetUnderLocks(path, { ...request, dryRun: false }, ledger.value));
  } catch (cause) {
    return err({
      kind: 'io',
      message: `forget of ${path} stopped: ${messageOf(cause)}; run it again to finish`,
    });
  } finally {
    await reactors.value.release();
  }
};

/** What one forget works with, shared by its steps. */
interface ForgetRun {
  readonly path: string;
  readonly request: ForgetRequest;
  readonly dryRun: boolean;
  readonly pseudonym: string;
  readonly reused: boolean;
  /** The names typed, and those the log holds for the subject's ids. */
  readonly names: NamesToErase;
  readonly plan: LinePlan;
  /** Participant ids outside the subject's stored with one of the names found. */
  readonly sameName: readonly number[];
  /** What the erasure's `started` and `done` ledger entries share. */
  readonly entry: Omit<ErasureEntry, 'state' | 'at'>;
}

/** What forget did to the files beside the log, besides the log and the journal. */
interface BesideRewrites {
  tornTails: number;
  snapshots: number;
  /** Files forget rewrote (or found rewritten). */
  readonly rewritten: string[];
  readonly notes: string[];
}

/** The keyed hashes of the typed names, made (with the log's key) only by a forget that writes. */
const nameKeysOf = async (path: string, request: ForgetRequest): Promise<readonly string[]> => {
  if (request.dryRun || request.names.length === 0) return [];
  // The key is made before the entry that needs it: a crash between them leaves a key, never an entry without one.
  const key = await ensureNameKeyFile(path);
  if (key.isErr()) throw new Error(key.error);
  return new ErasureLedger([], key.value).nameKeysOf(request.names);
};

/** Reads what a forget of `request` needs from the log: the names, the plan, the pseudonym. */
const prepareForget = async (
  path: string,
  request: ForgetRequest,
  ledger: ErasureLedger,
): Promise<ForgetRun> => {
  const { pseudonym, reused } = pseudonymOf(ledger, request);
  const company = request.companyId === undefined ? {} : { companyId: request.companyId };
  const subject: ErasureSubject = {
    participantIds: request.participantIds,
    userIds: request.userIds,
    names: request.names,
    pseudonym,
    ...company,
  };
  const found = await gatherNames(path, linePlan(subject, { typed: [], found: [] }));
  const names: NamesToErase = { typed: request.names, found };
  const plan = linePlan(subject, names);
  const sameName = await sameNameParticipants(path, plan, found);
  const erasure = randomUUID();
  const nameKeys = await nameKeysOf(path, request);
  const entry = {
    erasure,
    pseudonym,
    participantIds: request.participantIds,
    userIds: request.userIds,
    typedNames: request.names.length,
    ...(nameKeys.length === 0 ? {} : { nameKeys }),
    ...company,
  };
  return { path, request, dryRun: request.dryRun, pseudonym, reused, names, plan, sameName, entry };
};

/** Appends the erasure's `started` or `done` entry to the log's ledger. */
const appendEntry = async (
  run: ForgetRun,
  state: 'started' | 'done',
  counts?: Readonly<Record<string, number>>,
): Promise<void> => {
  const at = new Date().toISOString();
  const appended = await appendErasureEntry(run.path, {
    ...run.entry,
    state,
    at,
    ...(counts === undefined ? {} : { counts }),
  });
  if (appended.isErr()) throw new Error(appended.error.message);
};

/**
 * Rewrites (or, in a dry run, counts) the torn tails and the snapshots of
 * the log beside it that hold a name; a snapshot is folded again from
 * `newLog`, the rewritten log not renamed yet.
 */
const rewriteBeside = async (
  run: ForgetRun,
  newLog: string | undefined,
): Promise<BesideRewrites> => {
  const { path, plan, dryRun } = run;
  const done: BesideRewrites = { tornTails: 0, snapshots: 0, rewritten: [], notes: [] };
  const logName = basename(path);
  for (const file of await filesBeside(path)) {
    const name = basename(file);
    if (name.startsWith(`${logName}.torn-`) && !isReplacementTemporary(name)) {
      done.tornTails += await rewriteWholeFile(file, plan, dryRun);
      done.rewritten.push(file);
    } else if (
      file !== path &&
      (await isSnapshotFile(file)) &&
      (await fileHolds(file, plan.forms))
    ) {
      if (dryRun || newLog === undefined) {
        done.snapshots += 1;
        continue;
      }
      const outcome = await rewriteSnapshot(file, path, newLog);
      if (outcome === 'rewritten') done.snapshots += 1;
      if (outcome !== 'foreign') done.rewritten.push(file);
      if (outcome === 'foreign') {
        done.notes.push(
          `${file} is not a snapshot forget can fold again (another log, upcasters, or older rules): delete it or take it again`,
        );
      }
    }
  }
  return done;
};

/**
 * Rewrites the log (to a replacement renamed over it last), the journal and
 * the files beside it; or, in a dry run, counts what would change. Returns
 * the counts by place, and what became of the files beside.
 */
const rewriteAll = async (
  run: ForgetRun,
): Promise<{ counts: Record<string, number>; beside: BesideRewrites }> => {
  const { path, names, pseudonym, plan, dryRun } = run;
  const replacement = dryRun ? undefined : await startReplacement(path, { mode: FILE_MODE });
  try {
    const lines = await rewriteLines(path, plan, replacement);
    await replacement?.finish();
    const journalLines = await rewriteJournal(path, names, pseudonym, plan.forms, dryRun);
    const beside = await rewriteBeside(run, replacement?.temporary);
    // Last: until this rename, a forget run again reads the names from the old log.
    await replacement?.commit();
    const counts = {
      'log records': lines.records,
      'bad lines': lines.badLines,
      'journal lines': journalLines,
      'torn tails': beside.tornTails,
      snapshots: beside.snapshots,
    };
    return { counts, beside };
  } catch (cause) {
    await replacement?.abandon();
    throw cause;
  }
};

/**
 * The files of the log's directory that still hold a name once the log is
 * rewritten: those forget does not own are `remaining`; one it owns gets a
 * note (the name stays in records of other ids).
 */
const stillHolding = async (
  run: ForgetRun,
  rewritten: readonly string[],
  notes: string[],
): Promise<string[]> => {
  const { path, names } = run;
  const forms = storedForms([...names.typed, ...names.found]).map((form) => Buffer.from(form));
  const owned = new Set([path, journalPathOf(path), ...rewritten]);
  const remaining: string[] = [];
  for (const file of await filesBeside(path)) {
    if (!(await fileHolds(file, forms).catch(() => false))) continue;
    if (owned.has(file)) {
      notes.push(
        `${file} still holds one of the names, in records of other ids (another person of the same name, or a title): forget them by --name if they are this person`,
      );
    } else {
      remaining.push(file);
    }
  }
  return remaining;
};

/** The forget itself, once the locks it needs are held (see {@link forgetFileLog}). */
const forgetUnderLocks = async (
  path: string,
  request: ForgetRequest,
  ledger: ErasureLedger,
): Promise<ForgetReport> => {
  const run = await prepareForget(path, request, ledger);
  if (!run.dryRun) await appendEntry(run, 'started');
  const { counts, beside } = await rewriteAll(run);
  const notes = [...beside.notes];
  let remaining: string[] = [];
  if (!run.dryRun) {
    await appendEntry(run, 'done', counts);
    remaining = await stillHolding(run, beside.rewritten, notes);
  }
  return {
    erasure: run.entry.erasure,
    pseudonym: run.pseudonym,
    reused: run.reused,
    dryRun: run.dryRun,
    participantIds: request.participantIds,
    userIds: request.userIds,
    typedNames: request.names.length,
    ...(request.companyId === undefined ? {} : { companyId: request.companyId }),
    foundNames: run.names.found.length,
    sameNameParticipantIds: run.sameName,
    counts,
    remaining,
    notes,
  };
};
