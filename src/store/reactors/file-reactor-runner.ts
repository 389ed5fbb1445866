/**
 * Reactors on a file log: `signfold react`. The runner replays the log into
 * a projector whose `onApplied` plans each reactor's reaction into a
 * {@link ReactorEffects}, journals the book beside the log (`LOG.reactors`) under
 * its own lock, and executes ready effects. Reactors keep their own
 * checkpoints, so replaying or rebuilding projections never re-runs
 * effects; an effect runs again only if a crash took it between its start
 * and the journal line recording its outcome (at most `MAX_IN_FLIGHT`).
 * Below its checkpoint a reactor reacts only to an event it passed while it
 * was quarantined and that a new rule or upcaster now applies: once.
 */
import { stat } from 'node:fs/promises';
import { err, ok, type Result, safeTry } from 'neverthrow';
import type { AttemptObserver } from '../../core/reactors/attempt-result.js';
import type { EffectsReport } from '../../core/reactors/effects-report.js';
import { withPrunedDone } from '../../core/reactors/effects-report.js';
import { reactInto } from '../../core/reactors/plan-reaction.js';
import { ReactorEffects } from '../../core/reactors/reactor-effects.js';
import type { Change, Reactor } from '../../core/reactors/reactor-types.js';
import type { Upcaster } from '../../core/upcasters/upcaster-types.js';
import { createProjector } from '../../engine/projector.js';
import type { ProjectorStats } from '../../engine/projector-types.js';
import type { Tracing } from '../../engine/tracing.js';
import { readFileEventLog } from '../file-record-stream.js';
import { applyEditRequest, claimEditRequests, type EditAnswer } from './edit-requests.js';
import { EffectExecutor, type ExecutionCounts } from './effect-executor.js';
import { EffectTrace } from './effect-trace.js';
import {
  type JournalState,
  type JournalWriter,
  openJournalWriter,
  readJournal,
} from './reactor-journal.js';
import { acquireReactorLock } from './reactor-lock.js';
import { UnreactedPositions } from './unreacted-positions.js';
import { WakeUp } from './wake-up.js';

/** Options of {@link createFileReactorRunner}. */
export interface FileReactorRunnerOptions {
  readonly logPath: string;
  readonly reactors: readonly Reactor[];
  /** Applied to each record before it is decoded, as `createProjector`'s (default none). */
  readonly upcasters?: readonly Upcaster[];
  /** Where a reactor without a checkpoint starts: `start` (default) or `end` of the log. */
  readonly from?: 'start' | 'end';
  /** Return once everything is reacted to and no effect is due or retrying (default `false`: follow). */
  readonly drain?: boolean;
  /** How often to look for appends without `notify()` (default 200 ms). */
  readonly pollMs?: number;
  /** How long running effects may take to finish at shutdown (default 10,000 ms). */
  readonly shutdownGraceMs?: number;
  /** Wall clock, ms epoch (default `Date.now`). */
  readonly now?: () => number;
  /** Jitter source for retry delays (default `Math.random`). */
  readonly random?: () => number;
  /** Called once the lock is held and the journal read, before the first reaction. */
  readonly onStarted?: () => void;
  /**
   * Tells of each record projected and each effect attempt in spans
   * (`createOtelTracing` of `signfold/otel`, docs/tracing.md). Default: none.
   */
  readonly tracing?: Tracing;
  /** Told of each effect attempt's end (metrics). */
  readonly onAttempt?: AttemptObserver;
}

/**
 * How far a running runner has read and folded, for gauges read at scrape
 * time: a log's positions are not its lines, so how far behind the runner
 * is can only be told in bytes of the file.
 */
export interface FileReactorProgress {
  /** Bytes of the log that the last look started from the end of (0 before the first look). */
  readonly lookedAtBytes: number;
  /** When that look started, ms epoch (`undefined` before the first look). */
  readonly lookedAt: number | undefined;
  /** What the runner's projector counted since the run started (the whole log at first). */
  readonly stats: ProjectorStats;
  /** Effects being attempted now, per reactor. */
  readonly running: ReadonlyMap<string, number>;
}

/** What a run did. */
export interface ReactorRunSummary extends ExecutionCounts {
  /** Reactions planned (one per applied event and reactor past its checkpoint). */
  readonly reactions: number;
  /** Effects still running when the shutdown grace ran out (they run again next time). */
  readonly abandoned: number;
  readonly report: EffectsReport;
}

/** Why a run could not start or go on; `message` is one line. */
export interface ReactorRunError {
  readonly kind: 'locked' | 'io' | 'corrupt';
  readonly message: string;
}

/**
 * What stops a run: an `AbortSignal` (written structurally, so the
 * declarations compile without the DOM or Node's types).
 */
export interface StopSignal {
  /** Whether the run should stop. */
  readonly aborted: boolean;
  /** Registers `listener` for the stop. */
  addEventListener(type: 'abort', listener: () => void): void;
  /** Removes a listener registered with `addEventListener`. */
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A runner (see {@link createFileReactorRunner}). */
export interface FileReactorRunner {
  /** Runs until `signal` aborts, or (with `drain`) until drained. Never rejects. */
  run(signal?: StopSignal): Promise<Result<ReactorRunSummary, ReactorRunError>>;
  /** Says the log grew: look now rather than at the next poll. */
  notify(): void;
  /** The effects report of the state in memory (empty before `run`). */
  report(): EffectsReport;
  /** How far the run has read (see {@link FileReactorProgress}). */
  progress(): FileReactorProgress;
}

const DEFAULT_POLL_MS = 200;
/** The documented bound on a shutdown's wait for running effects. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/** Journal bytes appended after which the journal is compacted again. */
const COMPACT_AFTER_BYTES = 64 * 1024 * 1024;

/** A size and modification time that change when the log is appended to, and the size. */
const logMark = async (path: string): Promise<{ mark: string; size: number }> => {
  const info = await stat(path);
  return { mark: `${info.size}:${info.mtimeMs}`, size: info.size };
};

/**
 * The reactor runner of a file log. `run` takes `LOG.reactors.lock` (a
 * second runner is refused), restores the journal, and reacts from each
 * reactor's checkpoint: from the start of the log for a new reactor, or from
 * its end with `from: 'end'`.
 */
export const createFileReactorRunner = (options: FileReactorRunnerOptions): FileReactorRunner => {
  const now = options.now ?? Date.now;
  const wake = new WakeUp();
  let book = new ReactorEffects();
  const pruned: Record<string, number> = {};
  const live: LiveProgress = { lookedAtBytes: 0, lookedAt: undefined };
  /** A run once the lock is held (the caller releases it). */
  const runLocked = async (
    signal: StopSignal | undefined,
  ): Promise<Result<ReactorRunSummary, ReactorRunError>> =>
    safeTry(async function* () {
      const journal = yield* await readJournal(options.logPath);
      book = ReactorEffects.restore(journal.book);
      const unreacted = UnreactedPositions.fromChanges([journal.unreacted]);
      // Done and cancelled effects leave the journal at each compaction; done ones stay counted.
      addCounts(pruned, journal.pruned);
      addCounts(pruned, book.prune());
      const writer = yield* await openJournalWriter(
        options.logPath,
        stateOf(book, journal.positions, pruned, unreacted),
      );
      options.onStarted?.();
      // No yield* in this try: safeTry drops the generator at an Err, so `finally` would not run.
      try {
        const positions = { ...journal.positions };
        const state = { book, positions, pruned, unreacted };
        return await new ReactorRun({ options, state, writer, wake, now, live }).run(signal);
      } finally {
        await writer.close().catch(() => undefined);
      }
    });
  const run = async (signal?: StopSignal): Promise<Result<ReactorRunSummary, ReactorRunError>> =>
    safeTry(async function* () {
      const lock = yield* await acquireReactorLock(options.logPath);
      // A safeTry of its own: a yield* in this try would leave `finally` unrun at an Err.
      try {
        return await runLocked(signal);
      } finally {
        await lock.release();
      }
    });
  return {
    run,
    notify: () => wake.wake(true),
    report: () => withPrunedDone(book.report(), pruned),
    progress: () => ({
      lookedAtBytes: live.lookedAtBytes,
      lookedAt: live.lookedAt,
      stats: live.projector?.stats() ?? NO_STATS,
      running: live.executor?.runningByReactor() ?? new Map(),
    }),
  };
};

const NO_STATS: ProjectorStats = {
  applied: 0,
  noOps: 0,
  conflicts: 0,
  invalid: 0,
  alreadyApplied: 0,
};

/** What a run shares with {@link FileReactorRunner.progress} while it goes. */
interface LiveProgress {
  lookedAtBytes: number;
  lookedAt: number | undefined;
  projector?: { stats(): ProjectorStats };
  executor?: EffectExecutor;
}

/** Adds `more` to `counts`, reactor by reactor. */
const addCounts = (
  counts: Record<string, number>,
  more: Readonly<Record<string, number>>,
): void => {
  for (const [name, count] of Object.entries(more)) counts[name] = (counts[name] ?? 0) + count;
};

/** The whole state to compact the journal to. */
const stateOf = (
  book: ReactorEffects,
  positions: Readonly<Record<string, number>>,
  pruned: Readonly<Record<string, number>>,
  unreacted: UnreactedPositions,
): JournalState => ({
  book: { entries: book.entries(), watermarks: book.watermarks(), nextId: book.nextId },
  positions,
  pruned,
  unreacted: unreacted.whole(),
});

/** The state a run restores from the journal and keeps in step with it. */
interface RunState {
  readonly book: ReactorEffects;
  readonly positions: Record<string, number>;
  readonly pruned: Record<string, number>;
  readonly unreacted: UnreactedPositions;
}

/** What one run is given once the lock is held and the journal read. */
interface RunContext {
  readonly options: FileReactorRunnerOptions;
  readonly state: RunState;
  readonly writer: JournalWriter;
  readonly wake: WakeUp;
  readonly now: () => number;
  readonly live: LiveProgress;
}

/**
 * One run of the reactors over the log: each turn looks at the log when it
 * may have grown (a fresh replay that reacts to what passed the reactors'
 * checkpoints), releases due timers, takes operators' requests, journals,
 * starts ready effects, then sleeps until an effect settles, a timer is due
 * or the next look.
 */
class ReactorRun {
  readonly #context: RunContext;
  readonly #pollMs: number;
  /**
   * Per reactor (by index), the position it has reacted up to: +∞ for a new
   * one starting at the end, until the first look has read the log.
   */
  readonly #reactedTo: number[];
  #reactions = 0;
  /**
   * Reactions to positions passed while quarantined: they leave the sets once
   * the look is over, since one record an upcaster made several events of
   * hands over several changes.
   */
  readonly #lateReactions: [string, number][] = [];
  /** Quarantine entries already looked at: the quarantine only grows as the fold goes on. */
  #quarantineSeen = 0;
  readonly #effectTrace: EffectTrace | undefined;
  readonly #projector: ReturnType<typeof createProjector>;
  readonly #executor: EffectExecutor;
  #positionsMoved = false;
  /** Operators' retry and skip requests (edit-requests.ts): looked for at most once a poll. */
  #requestsLookedAt = Number.NEGATIVE_INFINITY;
  readonly #answers: [{ answer(a: EditAnswer): Promise<void> }, EditAnswer][] = [];
  /** The log's size and modification time at the last look that read it. */
  #seen: string | undefined;
  #lookedAt = Number.NEGATIVE_INFINITY;
  /**
   * A look reads the log from its start (the reader has no offset to resume
   * from): an append brings the next one forward, but not sooner than four
   * looks' time after the last, so following a large log busy with appends
   * costs at most about a fifth of a core.
   */
  #scanMs = 0;
  #notified = false;

  constructor(context: RunContext) {
    this.#context = context;
    const { options, state, wake, now, live } = context;
    const { reactors } = options;
    this.#pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.#reactedTo = reactors.map((r) =>
      state.positions[r.name] === undefined && options.from === 'end'
        ? Number.POSITIVE_INFINITY
        : (state.positions[r.name] ?? 0),
    );
    for (const reactor of reactors) state.positions[reactor.name] ??= 0;
    const traced = options.tracing?.enabled === true ? options.tracing : undefined;
    this.#effectTrace = traced === undefined ? undefined : new EffectTrace(traced);
    this.#projector = createProjector({
      audit: false,
      onApplied: (change) => this.#onApplied(change),
      ...(traced === undefined ? {} : { tracing: traced }),
      ...(options.upcasters === undefined ? {} : { upcasters: options.upcasters }),
    });
    this.#executor = new EffectExecutor({
      book: state.book,
      reactors,
      now,
      random: options.random ?? Math.random,
      onSettled: () => wake.wake(),
      onAttempt: options.onAttempt,
      trace: this.#effectTrace,
    });
    live.projector = this.#projector;
    live.executor = this.#executor;
  }

  /** Plans each reactor's reaction to an applied event past its checkpoint (or passed while quarantined). */
  #onApplied(change: Change): void {
    const { reactors } = this.#context.options;
    const { book, unreacted } = this.#context.state;
    this.#effectTrace?.reactedTo(change);
    for (let i = 0; i < reactors.length; i += 1) {
      const reactor = reactors[i] as Reactor;
      if (change.position <= (this.#reactedTo[i] as number)) {
        if (!unreacted.has(reactor.name, change.position)) continue;
        this.#lateReactions.push([reactor.name, change.position]);
      }
      reactInto(book, reactor, change);
      this.#reactions += 1;
    }
  }

  /** Notes the positions each reactor passed in this look while they were quarantined. */
  #notePassed(passedFrom: readonly number[]): void {
    const { reactors } = this.#context.options;
    const { unreacted } = this.#context.state;
    const quarantine = this.#projector.quarantine();
    for (const entry of quarantine.slice(this.#quarantineSeen)) {
      // A bad line is not JSON: no upcaster or rule can ever make it an event.
      if (entry.reason.kind === 'bad-line') continue;
      reactors.forEach((reactor, i) => {
        if (entry.position > (passedFrom[i] as number))
          unreacted.passed(reactor.name, entry.position);
      });
    }
    this.#quarantineSeen = quarantine.length;
    for (const [name, position] of this.#lateReactions) unreacted.reacted(name, position);
    this.#lateReactions.length = 0;
  }

  /** Journals what changed since the last flush, frees the slots of the outcomes it records, compacts when due. */
  async #flush(): Promise<void> {
    const { writer, state } = this.#context;
    const { book, positions, pruned, unreacted } = state;
    const completed = this.#executor.unjournaled;
    const entries = book.takeChanged();
    const unreactedChanges = unreacted.takeChanges();
    if (entries.length === 0 && completed === 0 && !this.#positionsMoved && !unreactedChanges) {
      return;
    }
    this.#positionsMoved = false;
    await writer.append({
      nextId: book.nextId,
      positions,
      watermarks: book.watermarks(),
      entries,
      ...(unreactedChanges === undefined ? {} : { unreacted: unreactedChanges }),
    });
    this.#executor.journaled(completed);
    if (writer.appendedBytes > COMPACT_AFTER_BYTES) {
      addCounts(pruned, book.prune());
      await writer.compact(stateOf(book, positions, pruned, unreacted));
    }
  }

  /** Claims the operators' requests (at most once a poll) and applies them to the book. */
  async #takeRequests(): Promise<void> {
    const { now, options, state } = this.#context;
    if (now() - this.#requestsLookedAt < this.#pollMs) return;
    this.#requestsLookedAt = now();
    for (const claimed of await claimEditRequests(options.logPath)) {
      this.#answers.push([claimed, applyEditRequest(state.book, claimed.request, now())]);
    }
  }

  /** How long until the next look may read the log. */
  #untilLook(): number {
    const now = this.#context.now();
    return this.#notified
      ? Math.max(0, this.#lookedAt + 4 * this.#scanMs - now)
      : this.#lookedAt + this.#pollMs - now;
  }

  /** Reads the log again if it changed since the last look, reacting to what is new. */
  async #look(): Promise<void> {
    const { options, now, state, live } = this.#context;
    const { reactors, logPath } = options;
    const { positions } = state;
    this.#notified = false;
    this.#lookedAt = now();
    const { mark, size } = await logMark(logPath);
    if (mark !== this.#seen) {
      this.#seen = mark;
      const replayed = await this.#projector.replay({
        read: (o) => readFileEventLog(logPath, o),
      });
      this.#scanMs = now() - this.#lookedAt;
      if (replayed.isErr()) throw new Error(replayed.error.message);
      this.#notePassed(this.#reactedTo);
      reactors.forEach((reactor, i) => {
        const before = positions[reactor.name] ?? 0;
        positions[reactor.name] = Math.max(before, this.#projector.checkpoint);
        this.#positionsMoved ||= positions[reactor.name] !== before;
        this.#reactedTo[i] = positions[reactor.name] as number;
      });
    }
    // Everything up to `size` is folded now (a look reads to the end, at least that far).
    live.lookedAtBytes = size;
    live.lookedAt = this.#lookedAt;
  }

  /** One turn of the loop; resolves to `false` once a drain is done. */
  async #turn(): Promise<boolean> {
    const { options, now, wake, state } = this.#context;
    const { book } = state;
    this.#notified ||= wake.takeNotified();
    if (this.#seen === undefined || this.#untilLook() <= 0) await this.#look();
    // Every stored event is reacted to (caught up): now, and only now, timers due by the wall
    // clock are released, since no cancel stored behind them is still unread.
    const clock = now();
    for (const reactor of options.reactors) book.release(reactor.name, clock);
    await this.#takeRequests();
    // Journal first: it frees the slots of the outcomes it records.
    await this.#flush();
    // Answered only once journaled: an answer promises the change survives a crash.
    for (const [claimed, answer] of this.#answers.splice(0)) {
      await claimed.answer(answer).catch(() => undefined);
    }
    await this.#executor.startReady();
    const executor = this.#executor;
    if (options.drain === true && executor.running === 0 && !executor.hasRunnable()) return false;
    // Due now but not started: running, or out of slots; an effect settling wakes the loop.
    const pollMs = this.#pollMs;
    const due = book.nextDueAt();
    const untilDue = due === undefined ? pollMs : due - now();
    const waitMs = Math.max(
      0,
      Math.min(untilDue <= 0 ? pollMs : untilDue, pollMs, this.#untilLook()),
    );
    await wake.wait(waitMs);
    return true;
  }

  /** Runs turns until `signal` aborts (or a drain is done), then stops the executor and journals. */
  async run(signal: StopSignal | undefined): Promise<Result<ReactorRunSummary, ReactorRunError>> {
    const { options, wake, state } = this.#context;
    const onAbort = (): void => wake.wake();
    signal?.addEventListener('abort', onAbort);
    try {
      let going = true;
      while (going && signal?.aborted !== true) going = await this.#turn();
      const abandoned = await this.#executor.stop(
        options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
      );
      await this.#flush();
      return ok({
        reactions: this.#reactions,
        abandoned,
        ...this.#executor.counts(),
        report: withPrunedDone(state.book.report(), state.pruned),
      });
    } catch (cause) {
      // The log vanished, became unreadable, or shrank below the projector's checkpoint.
      const message = cause instanceof Error ? cause.message : String(cause);
      await this.#executor.stop(0);
      return err({ kind: 'io', message });
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
