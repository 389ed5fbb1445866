/**
 * The NDJSON file {@link EventLog}: one line per event, appended in place,
 * replayed by streaming. See `docs/log-format.md` for the format and the
 * guarantees. One writer per file, enforced by a lock file (`writer-lock.ts`).
 */
import { dirname } from 'node:path';
import { err, ok, type Result } from 'neverthrow';
import type { ErasureLedger } from '../core/privacy/erasure-ledger.js';
import { type EncodedRecord, encodeItems } from '../engine/append-encoding.js';
import type {
  AppendOutcome,
  BatchEventLog,
  LogRecord,
  NewRecord,
  ReadOptions,
} from '../engine/event-log.js';
import { appendOne } from '../engine/event-log.js';
import { GroupCommitQueue } from '../engine/group-commit.js';
import { closedError, EventLogReadError } from '../engine/log-errors.js';
import { writeLimits } from '../engine/log-limits.js';
import { AppendPlanner } from './append-planner.js';
import { type FileHandleIO, type FileIO, nodeFileIO, writeFully } from './file-io.js';
import { guardReads, streamRecords, streamSettings } from './file-record-stream.js';
import { readLedgerFile } from './forget/erasure-ledger-file.js';
import { type LockSeeker, lockedError } from './locked-error.js';
import { ioError, type LogError, lockLostError } from './log-error.js';
import { endsWithoutNewline, type Scan, scan } from './log-scan.js';
import { setAsideTornTail, type TornTail } from './torn-tail.js';
import {
  acquireWriterLock,
  type HeldLock,
  lockTiming,
  type WriterLockOptions,
} from './writer-lock.js';

/** Re-exported so users of the file log need only this module. */
export type { TornTail } from './torn-tail.js';

/** Options for {@link openFileEventLog}. */
export interface FileEventLogOptions {
  /**
   * `'fsync'` (default): an append resolves only after its bytes are flushed
   * to stable storage (fdatasync), so it survives a power loss. `'none'`: it
   * resolves once the OS has the bytes, which survives a process crash but
   * not a power loss or kernel panic; much faster.
   */
  readonly durability?: 'fsync' | 'none';
  /** Longest line the reader accepts, in bytes (default 1 MiB). */
  readonly maxLineBytes?: number;
  /** Largest serialized event `append` accepts, in bytes (default 256 KiB). */
  readonly maxEventBytes?: number;
  /** Bytes per read when scanning and replaying (default 1 MiB). */
  readonly chunkBytes?: number;
  /** File operations (default `node:fs/promises`); inject to simulate disk faults. */
  readonly io?: FileIO;
  /** Clock for the default `receivedAt` and the torn-tail file name. */
  readonly now?: () => Date;
  /**
   * Timing of the writer lock `<path>.lock` (see `docs/log-format.md`): a
   * lock whose holder died in this pid namespace is taken over at once; a
   * live holder's lock never, however old its heartbeat; a lock from another
   * host or namespace only by `signfold unlock`.
   */
  readonly lock?: WriterLockOptions;
}

/** An open file log. */
export interface FileEventLog extends BatchEventLog<LogError> {
  /** The log file. */
  readonly path: string;
  /** The torn last line open found and set aside, if any. */
  readonly tornTail: TornTail | undefined;
  /** Position of the last entry (bad lines hold none), updated by appends; 0 when there is none. */
  readonly lastPosition: number;
}

/** One queued append call. */
interface AppendJob {
  readonly items: readonly NewRecord[];
  readonly settle: (result: Result<readonly AppendOutcome[], LogError>) => void;
}

/** A step run with the appends held back (see {@link ExclusiveFileEventLog.exclusive}). */
interface ExclusiveJob {
  readonly run: () => Promise<void>;
}

type QueuedJob = AppendJob | ExclusiveJob;

/** The ledger's erasure of names on append, or `undefined` when it has no entry (the hot path adds nothing). */
const erasingOnAppend = (
  erasures: ErasureLedger,
): ((items: readonly EncodedRecord[]) => EncodedRecord[]) | undefined =>
  erasures.isEmpty
    ? undefined
    : (items) =>
        items.map((item) => ({ ...item, eventJson: erasures.eraseOnAppend(item.eventJson) }));

/** What open learns from the file: where appends go, and the positions and delivery ids in it. */
interface Loaded {
  readonly state: Scan['state'];
  readonly committed: number;
  readonly needsNewline: boolean;
  readonly tornTail: TornTail | undefined;
}

/** Scans the open `handle` of `path`, setting a torn last line aside. */
const loadOpened = async (
  io: FileIO,
  handle: FileHandleIO,
  path: string,
  settings: ReturnType<typeof streamSettings>,
  now: () => Date,
): Promise<Loaded | { readonly error: LogError }> => {
  try {
    let committed = await handle.size();
    // An empty file may have just been created: make its directory entry durable.
    if (committed === 0) await io.syncDirectory(dirname(path));
    const found = await scan(handle, settings, committed);
    let needsNewline = false;
    let tornTail: TornTail | undefined;
    if (found.torn === undefined) {
      needsNewline = await endsWithoutNewline(handle, committed);
    } else {
      const moved = await setAsideTornTail(
        io,
        handle,
        path,
        found.torn,
        committed,
        now(),
        settings.chunkBytes,
      );
      if (moved.isErr()) throw moved.error;
      tornTail = moved.value;
      committed = found.torn.offset;
    }
    return { state: found.state, committed, needsNewline, tornTail };
  } catch (cause) {
    const isLogError = typeof cause === 'object' && cause !== null && 'kind' in cause;
    return { error: isLogError ? (cause as LogError) : ioError(cause, path, 'scanning') };
  }
};

/**
 * A file log opened by signfold's own processes (`serve`), which may also
 * run a step that rewrites the file with the appends held back.
 */
export interface ExclusiveFileEventLog extends FileEventLog {
  /**
   * Runs `step` once every append queued before it is committed, with the
   * appends made meanwhile held back (they wait, committed after it, subject
   * to their caller's deadline), then opens the file again: `step` may have
   * replaced it (renamed a rewritten copy over it) and added to the erasure
   * ledger, whose names later appends are then stored without. The writer
   * lock is held throughout. Resolves with what `step` resolved; if `step`
   * rejects, rejects with that once the file is open again. If the file
   * cannot be opened again, every later append fails (`io`).
   */
  exclusive<T>(step: () => Promise<T>): Promise<T>;
}

/**
 * Opens (creating if missing) an NDJSON event log for appending. It first
 * takes the log's exclusive writer lock `<path>.lock`, so a second writer (in
 * this process or another) gets a `locked` error and writes nothing; a lock
 * left by a writer that died in this pid namespace is taken over, a live
 * writer's never. `close()` releases it. Open scans
 * the file to rebuild the last position and the delivery ids, sets aside a
 * torn last line (see {@link FileEventLog.tornTail}), and remembers to add
 * the newline a complete but unterminated last line lacks. Fails with an
 * `io` error if the file cannot be opened, read or repaired; rejects with a
 * `RangeError` if `maxLineBytes`, `maxEventBytes`, `chunkBytes` or a `lock`
 * timing is not a positive safe integer.
 *
 * @example
 * ```ts
 * import { openFileEventLog } from 'signfold/file';
 *
 * const opened = await openFileEventLog('events.ndjson');
 * if (opened.isErr()) throw new Error(opened.error.message); // e.g. kind 'locked': another writer has it
 * const log = opened.value;
 * const stored = await log.append({ type: 'template-deleted' }, { deliveryId: 'delivery-17' });
 * console.log(stored.isOk() && stored.value.kind); // 'appended', or 'duplicate' when redelivered
 * await log.close();
 * ```
 */
export const openFileEventLog = (
  path: string,
  options?: FileEventLogOptions,
): Promise<Result<FileEventLog, LogError>> => openFileEventLogFor(undefined, path, options);

/** What an open log's writer is given at open, and never changes. */
interface WriterSetup {
  readonly path: string;
  readonly lockPath: string;
  readonly lock: HeldLock;
  readonly io: FileIO;
  readonly now: () => Date;
  readonly settings: ReturnType<typeof streamSettings>;
  readonly limits: ReturnType<typeof writeLimits>;
  /** Whether an append waits for its bytes to reach stable storage (`durability: 'fsync'`). */
  readonly durable: boolean;
  readonly options: FileEventLogOptions | undefined;
}

/** An appended group, encoded and planned: its jobs, and the planner holding their lines. */
interface PlannedGroup {
  readonly planner: AppendPlanner;
  readonly accepted: readonly { readonly job: AppendJob; readonly outcomes: AppendOutcome[] }[];
}

/**
 * The state of an open file log and what changes it: appends committed in
 * groups, exclusive steps, reads of the acknowledged bytes, the close.
 * Appends and steps run one at a time, in the order queued, through one
 * {@link GroupCommitQueue}, so no two touch the file at once.
 */
class OpenFileLog {
  readonly #setup: WriterSetup;
  readonly #queue: GroupCommitQueue<QueuedJob>;
  #handle: FileHandleIO;
  #state: Scan['state'];
  /** Bytes of the file acknowledged: appends go there, reads stop there. */
  #committed: number;
  #needsNewline: boolean;
  #eraseNames: ((items: readonly EncodedRecord[]) => EncodedRecord[]) | undefined;
  /** Set when a failed write may have left bytes past `committed` that could not be cut yet. */
  #needsTruncate = false;
  #closing: Promise<void> | undefined;
  /** Set when the file could not be opened again after an exclusive step: no append can be stored. */
  #broken: LogError | undefined;

  constructor(setup: WriterSetup, handle: FileHandleIO, loaded: Loaded, erasures: ErasureLedger) {
    this.#setup = setup;
    this.#handle = handle;
    this.#state = loaded.state;
    this.#committed = loaded.committed;
    this.#needsNewline = loaded.needsNewline;
    this.#eraseNames = erasingOnAppend(erasures);
    this.#queue = new GroupCommitQueue<QueuedJob>((jobs) => this.#commit(jobs));
  }

  /** Position of the last entry, as of the last committed group. */
  get lastPosition(): number {
    return this.#state.lastPosition;
  }

  /** Encodes each job's records and plans them; a job whose records are refused is settled at once. */
  #plan(jobs: readonly AppendJob[]): PlannedGroup {
    const { limits, now } = this.#setup;
    const eraseNames = this.#eraseNames;
    const planner = new AppendPlanner(this.#state);
    const accepted: { readonly job: AppendJob; readonly outcomes: AppendOutcome[] }[] = [];
    for (const job of jobs) {
      const plain = encodeItems(job.items, limits, now);
      // Decided once per open: with no erasure (the usual case) the hot path adds nothing.
      const encoded = eraseNames === undefined ? plain : plain.map(eraseNames);
      if (encoded.isErr()) job.settle(err(encoded.error));
      else accepted.push({ job, outcomes: planner.add(encoded.value) });
    }
    return { planner, accepted };
  }

  /**
   * Writes the planned lines after the acknowledged bytes; on a failure cuts
   * back what reached the file and resolves to the error (nothing of the group
   * was acknowledged).
   */
  async #write(planner: AppendPlanner): Promise<LogError | undefined> {
    const lines = planner.entries.map((entry) => `${entry.line}\n`).join('');
    const bytes = Buffer.from(this.#needsNewline ? `\n${lines}` : lines);
    const handle = this.#handle;
    try {
      if (this.#needsTruncate) await handle.truncate(this.#committed);
      this.#needsTruncate = false;
      await writeFully(handle, bytes, this.#committed, this.#setup.durable);
    } catch (cause) {
      // Cut whatever part of the group reached the file: it was not acknowledged.
      this.#needsTruncate = true;
      await handle.truncate(this.#committed).then(
        () => {
          this.#needsTruncate = false;
        },
        () => undefined,
      );
      return ioError(cause, this.#setup.path, 'appending to');
    }
    this.#committed += bytes.length;
    this.#needsNewline = false;
    planner.apply();
    return undefined;
  }

  /** Commits one group of appends: all of its accepted records are acknowledged, or none. */
  async #commitGroup(jobs: readonly AppendJob[]): Promise<void> {
    const broken = this.#broken;
    if (broken !== undefined) {
      for (const job of jobs) job.settle(err(broken));
      return;
    }
    const { planner, accepted } = this.#plan(jobs);
    const { path, lockPath, lock } = this.#setup;
    // Not the fence (a check before an asynchronous write cannot be one: the lock is
    // simply never broken while this process lives), but a lock removed by hand or by
    // `signfold unlock` stops this writer before a new one can be acknowledged.
    if (planner.entries.length > 0 && !lock.stillHeld()) {
      const error = lockLostError(path, lockPath);
      for (const { job } of accepted) job.settle(err(error));
      return;
    }
    if (planner.entries.length > 0) {
      const error = await this.#write(planner);
      if (error !== undefined) {
        for (const { job } of accepted) job.settle(err(error));
        return;
      }
    }
    for (const { job, outcomes } of accepted) job.settle(ok(outcomes));
  }

  // The queue needs a commit that never rejects: an unexpected throw fails the
  // group's appends (settling a job twice is a no-op) instead of hanging them.
  #commitAppends(jobs: readonly AppendJob[]): Promise<void> {
    return this.#commitGroup(jobs).catch((cause: unknown) => {
      const error = ioError(cause, this.#setup.path, 'appending to');
      for (const job of jobs) job.settle(err(error));
    });
  }

  /** Opens the file again after an exclusive step, which may have replaced it and added erasures. */
  async #reopen(): Promise<void> {
    const { io, path, settings, now } = this.#setup;
    await this.#cutBack().catch(() => undefined);
    await this.#handle.close().catch(() => undefined);
    try {
      const ledger = await readLedgerFile(path);
      if (ledger.isErr()) throw new Error(ledger.error.message);
      this.#handle = await io.open(path, 'read-write');
      const again = await loadOpened(io, this.#handle, path, settings, now);
      if ('error' in again) throw new Error(again.error.message);
      this.#state = again.state;
      this.#committed = again.committed;
      this.#needsNewline = again.needsNewline;
      this.#eraseNames = erasingOnAppend(ledger.value);
      this.#broken = undefined;
    } catch (cause) {
      this.#broken = ioError(cause, path, 'opening again');
    }
  }

  // Appends are committed in groups, each exclusive step alone, in the order they were queued.
  async #commit(jobs: readonly QueuedJob[]): Promise<void> {
    let group: AppendJob[] = [];
    for (const job of jobs) {
      if ('items' in job) {
        group.push(job);
        continue;
      }
      if (group.length > 0) await this.#commitAppends(group);
      group = [];
      await job.run();
    }
    if (group.length > 0) await this.#commitAppends(group);
  }

  /** See {@link ExclusiveFileEventLog.exclusive}. */
  exclusive<T>(step: () => Promise<T>): Promise<T> {
    if (this.#closing !== undefined) {
      return Promise.reject(new Error(closedError('append').message));
    }
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({
        run: async () => {
          let outcome: { ok: true; value: T } | { ok: false; cause: unknown };
          try {
            outcome = { ok: true, value: await step() };
          } catch (cause) {
            outcome = { ok: false, cause };
          }
          await this.#reopen();
          if (outcome.ok) resolve(outcome.value);
          else reject(outcome.cause);
        },
      });
    });
  }

  /** Queues `items` for the next group commit. */
  appendBatch(items: readonly NewRecord[]): Promise<Result<readonly AppendOutcome[], LogError>> {
    if (this.#closing !== undefined) return Promise.resolve(err(closedError('append')));
    return new Promise((settle) => this.#queue.push({ items, settle }));
  }

  /** Streams the acknowledged records (see {@link FileEventLog.read}). */
  async *read(readOptions?: ReadOptions): AsyncGenerator<readonly LogRecord[]> {
    if (this.#closing !== undefined) throw new EventLogReadError(closedError('read'));
    const { io, path, options } = this.#setup;
    // Only acknowledged bytes: a group being written (or a failed one) is not replayed.
    const end = this.#committed;
    let reader: FileHandleIO;
    try {
      reader = await io.open(path, 'read');
    } catch (cause) {
      throw new EventLogReadError(ioError(cause, path, 'opening'));
    }
    try {
      const readSettings = { ...streamSettings({ ...options, ...readOptions }), end };
      yield* guardReads(streamRecords(reader, readSettings), path);
    } finally {
      await reader.close().catch(() => undefined);
    }
  }

  /**
   * Performs a cut-back that failed after a failed append (`needsTruncate`),
   * so closing never leaves unacknowledged bytes behind for the next open.
   */
  async #cutBack(): Promise<void> {
    if (!this.#needsTruncate) return;
    await this.#handle.truncate(this.#committed);
    if (this.#setup.durable) await this.#handle.sync();
    this.#needsTruncate = false;
  }

  /** Waits for the queued appends, cuts back a failed one, closes the file and releases the lock. */
  close(): Promise<void> {
    this.#closing ??= this.#queue
      .idle()
      .then(() => this.#cutBack())
      // If even this cut fails, the bytes stay as after a crash (see docs/log-format.md).
      .catch(() => undefined)
      .then(() => this.#handle.close())
      .catch(() => undefined)
      .then(() => this.#setup.lock.release());
    return this.#closing;
  }
}

/**
 * Under the held lock: reads the erasure ledger, opens the file and scans it.
 * On a failure, closes what it opened and releases the lock.
 */
const openLocked = async (
  setup: WriterSetup,
): Promise<
  Result<
    { readonly handle: FileHandleIO; readonly loaded: Loaded; readonly erasures: ErasureLedger },
    LogError
  >
> => {
  const { io, path, lock, settings, now } = setup;
  // Read under the lock, which `forget` holds while it writes the ledger: no entry can be missed.
  const ledger = await readLedgerFile(path);
  if (ledger.isErr()) {
    await lock.release();
    return err({ kind: 'io', code: undefined, path, message: ledger.error.message });
  }
  let handle: FileHandleIO;
  try {
    handle = await io.open(path, 'read-write');
  } catch (cause) {
    await lock.release();
    return err(ioError(cause, path, 'opening'));
  }
  const loaded = await loadOpened(io, handle, path, settings, now);
  if ('error' in loaded) {
    await handle.close().catch(() => undefined);
    await lock.release();
    return err(loaded.error);
  }
  return ok({ handle, loaded, erasures: ledger.value });
};

/**
 * {@link openFileEventLog} for a command that must write (`reconcile`): a
 * `locked` error names the command and says what would help it.
 */
export const openFileEventLogFor = async (
  seeker: LockSeeker | undefined,
  path: string,
  options?: FileEventLogOptions,
): Promise<Result<ExclusiveFileEventLog, LogError>> => {
  const settings = streamSettings({ ...options, fromPosition: 1 });
  const limits = writeLimits(options ?? {});
  const timing = lockTiming(options?.lock);
  const lockPath = `${path}.lock`;
  const acquired = await acquireWriterLock(lockPath, timing);
  if ('refused' in acquired) {
    const { refused } = acquired;
    return err(
      refused.kind === 'held'
        ? lockedError(path, lockPath, refused, timing.staleAfterMs, seeker)
        : ioError(refused.cause, path, 'locking'),
    );
  }
  const setup: WriterSetup = {
    path,
    lockPath,
    lock: acquired.held,
    io: options?.io ?? nodeFileIO,
    now: options?.now ?? (() => new Date()),
    settings,
    limits,
    durable: options?.durability !== 'none',
    options,
  };
  const opened = await openLocked(setup);
  if (opened.isErr()) return err(opened.error);
  const { handle, loaded, erasures } = opened.value;
  const log = new OpenFileLog(setup, handle, loaded, erasures);
  const appendBatch = (
    items: readonly NewRecord[],
  ): Promise<Result<readonly AppendOutcome[], LogError>> => log.appendBatch(items);
  return ok({
    path,
    tornTail: loaded.tornTail,
    get lastPosition() {
      return log.lastPosition;
    },
    append: appendOne(appendBatch),
    appendBatch,
    read: (readOptions) => log.read(readOptions),
    close: () => log.close(),
    exclusive: (step) => log.exclusive(step),
  });
};
