/**
 * `signfold pg rebuild`: builds the projection again beside the live schema
 * (in `S_rebuild`, from S's events, with this version's rules and
 * upcasters) while S keeps serving, then, with `--switch`, moves the new
 * tables in under S's names (src/postgres/rebuild/switch-projection.ts). Any number
 * of `pg rebuild` processes share the rebuild's partitions as `pg work`
 * processes share S's; an interrupted rebuild is resumed by the next one.
 */

import type { Upcaster } from '../../core/upcasters/upcaster-types.js';
import {
  createProjectionWorker,
  type PostgresError,
  type ProjectionWorker,
  type SqlPool,
} from '../../postgres/index.js';
import { type PreparedRebuild, prepareRebuild } from '../../postgres/rebuild/rebuild-schema.js';
import { type SwitchOutcome, switchProjection } from '../../postgres/rebuild/switch-projection.js';
import type { SchemaName } from '../../postgres/schema-name.js';
import { followAppends } from '../../postgres/worker/follow-appends.js';
import { EXIT, type ExitCode } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import type { PgTarget } from '../postgres-pool.js';
import { postgresFailure } from './failure.js';
import { projectionSummary } from './projection-summary.js';

/** The options of `pg rebuild`. */
export interface RebuildOptions {
  /** `--switch`: switch the readers to the rebuilt tables once they caught up. */
  readonly switch: boolean;
  readonly batchSize: number | undefined;
  readonly pollMs: number | undefined;
  readonly leaseMs: number | undefined;
  readonly workerId: string | undefined;
  /** `--upcasters MODULE`, loaded; empty without the flag. */
  readonly upcasters: readonly Upcaster[];
}

/** The bound of each lock wait of the switch (ms): appends wait at most about this per lock. */
export const SWITCH_LOCK_TIMEOUT_MS = 5000;

/** The bound of the switch's wait for the rebuild's partitions to reach the last position (ms). */
export const SWITCH_CATCH_UP_MS = 10_000;

/**
 * How far behind the last stored position (in positions) the rebuild may be
 * when the switch starts: the rest is projected while appends wait, so it
 * must take a moment, not a build.
 */
const SWITCH_LAG = 200;

/** How long a postponed switch waits before trying again (ms). */
const SWITCH_RETRY_MS = 1000;

/** How often the rebuild looks at how far its partitions have got (ms). */
const LOOK_MS = 250;

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/** The rebuild's workers following S's appends, until stopped. */
interface Following {
  /** Stops them after their batch in progress (their partitions given back). */
  stop(): Promise<void>;
  /** Settles when they stop: by {@link stop}, or by a failure retrying cannot fix. */
  readonly ended: Promise<Awaited<ReturnType<typeof followAppends>>>;
}

const follow = (
  pool: SqlPool,
  worker: ProjectionWorker,
  live: SchemaName,
  options: RebuildOptions,
  io: CliIO,
): Following => {
  const stop = new AbortController();
  const ended = followAppends(pool, worker, {
    signal: stop.signal,
    appendsOf: live,
    ...(options.pollMs === undefined ? {} : { pollIntervalMs: options.pollMs }),
    outage: {
      down: (error) =>
        writeLines(io.stderr, [
          `signfold: rebuilding paused: ${error.message}; reconnecting with backoff`,
        ]),
      up: (downMs, tries) =>
        writeLines(io.stderr, [
          `signfold: rebuilding again after ${seconds(downMs)} s (${tries} ${tries === 1 ? 'retry' : 'retries'})`,
        ]),
    },
  });
  return {
    ended,
    stop: async () => {
      stop.abort();
      await ended;
    },
  };
};

/** Where the rebuild stands: its lowest partition checkpoint and the last stored position. */
const standing = async (
  pool: SqlPool,
  { live, rebuild }: PreparedRebuild,
): Promise<{ checkpoint: number; last: number }> => {
  const { rows } = await pool.query<{ checkpoint: string | null; last: string | null }>(
    `SELECT (SELECT min(position) FROM ${rebuild}.partitions) AS checkpoint,
            (SELECT max(position) FROM ${live}.events) AS last`,
  );
  return { checkpoint: Number(rows[0]?.checkpoint ?? 0), last: Number(rows[0]?.last ?? 0) };
};

/**
 * Waits until the rebuild is within `lag` positions of `target` (the last
 * stored position when `target` is undefined), or the workers end, or
 * `signal` aborts. Whether it got there.
 */
const caughtUp = async (
  pool: SqlPool,
  prepared: PreparedRebuild,
  following: Following,
  { target, lag }: { target: number | undefined; lag: number },
  signal: AbortSignal,
): Promise<boolean> => {
  let ended = false;
  void following.ended.then(() => {
    ended = true;
  });
  for (;;) {
    if (ended || signal.aborted) return false;
    try {
      const now = await standing(pool, prepared);
      if (now.checkpoint >= (target ?? now.last) - lag) return true;
    } catch {
      // An outage: the workers report it and ride it out; look again later.
    }
    await sleep(LOOK_MS, signal);
  }
};

/** The line of a switch. */
const switchedLine = (live: string, outcome: SwitchOutcome): string =>
  `switched schema ${live} to the rebuilt tables at position ${outcome.position}: ` +
  `${outcome.events} events, ${outcome.partitions} partitions, ` +
  `${outcome.newlyApplicable} newly applicable ${outcome.newlyApplicable === 1 ? 'position' : 'positions'} ` +
  `(${outcome.redoRows} to react to again); appends waited ${seconds(outcome.appendsWaitedMs)} s; ` +
  `the old tables are in ${outcome.retired}`;

/** Turns how the workers ended into the exit, when they ended by themselves. */
const endedBy = async (
  pool: SqlPool,
  following: Following,
  prepared: PreparedRebuild,
  io: CliIO,
): Promise<ExitCode> => {
  const ended = await following.ended;
  if (ended.isOk()) return EXIT.ok;
  return failedWith(pool, ended.error, prepared, io);
};

/** Whether the rebuild schema is gone: switched in (or dropped) by another `pg rebuild`. */
const rebuildGone = async (pool: SqlPool, { rebuild }: PreparedRebuild): Promise<boolean> => {
  try {
    const { rows } = await pool.query<{ gone: boolean }>(
      'SELECT to_regnamespace($1) IS NULL AS gone',
      [rebuild],
    );
    return rows[0]?.gone === true;
  } catch {
    return false;
  }
};

/**
 * The exit for a failure of the rebuild's workers: 0 with one line when
 * another `pg rebuild` switched (or restarted) the rebuild under them, the
 * failure otherwise.
 */
const failedWith = async (
  pool: SqlPool,
  error: PostgresError,
  prepared: PreparedRebuild,
  io: CliIO,
): Promise<ExitCode> => {
  const undefinedTable = error.kind === 'database' && error.code === '42P01';
  if (error.kind === 'tables-replaced' || (undefinedTable && (await rebuildGone(pool, prepared)))) {
    writeLines(io.stderr, [
      `signfold pg rebuild: ${prepared.rebuild} was switched into ${prepared.live} or dropped by another pg rebuild; this worker stops`,
    ]);
    return EXIT.ok;
  }
  throw postgresFailure(error);
};

/** The first line: what the rebuild starts from. */
const preparedLine = (prepared: PreparedRebuild, upcasters: readonly string[]): string => {
  const { live, rebuild, partitions } = prepared;
  const rules = upcasters.length === 0 ? 'no upcasters' : `upcasters ${upcasters.join(', ')}`;
  if (prepared.how === 'resumed') return `resuming the rebuild of ${live} in ${rebuild} (${rules})`;
  const start = `rebuilding ${live} in ${rebuild} (${partitions} partitions, ${rules})`;
  if (prepared.how === 'created') return start;
  const before = prepared.previousUpcasters ?? [];
  return `${rebuild} was built with other upcasters (${before.length === 0 ? 'none' : before.join(', ')}): dropped; ${start}`;
};

/**
 * Runs `pg rebuild`: prepares the rebuild schema, projects into it until it
 * reaches the last stored position (without `--switch`; then exits, the
 * rebuild kept), or until it is close enough to switch, and switches (with
 * `--switch`, trying again after each postponement). SIGINT/SIGTERM
 * (`signal`) stop it with the rebuild kept.
 */
export const pgRebuild = async (
  pool: SqlPool,
  target: PgTarget,
  options: RebuildOptions,
  io: CliIO,
  signal: AbortSignal,
): Promise<ExitCode> => {
  const names = options.upcasters.map((upcaster) => upcaster.name);
  const prepared = await prepareRebuild(pool, target.schemaOptions.schema, names);
  if (prepared.isErr()) throw postgresFailure(prepared.error);
  const rebuild = prepared.value;
  writeLines(io.stderr, [preparedLine(rebuild, names)]);
  const created = await createProjectionWorker(pool, {
    schema: rebuild.rebuild,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.workerId === undefined ? {} : { workerId: options.workerId }),
    ...(options.upcasters.length === 0 ? {} : { upcasters: options.upcasters }),
  });
  if (created.isErr()) throw postgresFailure(created.error);
  const worker = created.value;
  const stopped = (following: Following, at: string): Promise<ExitCode> =>
    following.stop().then(() => {
      writeLines(io.stderr, [
        `signfold: stopped; ${rebuild.rebuild} is kept (${at}): run signfold pg rebuild again to resume`,
      ]);
      return EXIT.ok;
    });

  if (!options.switch) {
    const { last } = await standing(pool, rebuild).catch((cause: unknown) => {
      throw postgresFailure({
        kind: 'database',
        code: undefined,
        message: `reading ${rebuild.live}.events failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      });
    });
    const following = follow(pool, worker, rebuild.live, options, io);
    if (!(await caughtUp(pool, rebuild, following, { target: last, lag: 0 }, signal))) {
      if (signal.aborted) return stopped(following, 'not caught up yet');
      return endedBy(pool, following, rebuild, io);
    }
    await following.stop();
    const ended = await following.ended;
    if (ended.isErr()) return failedWith(pool, ended.error, rebuild, io);
    writeLines(io.stdout, [
      `built ${rebuild.rebuild}: ${projectionSummary(ended.value)}; switch with signfold pg rebuild --switch`,
    ]);
    return EXIT.ok;
  }

  const lag = SWITCH_LAG;
  for (;;) {
    const following = follow(pool, worker, rebuild.live, options, io);
    if (!(await caughtUp(pool, rebuild, following, { target: undefined, lag }, signal))) {
      if (signal.aborted) return stopped(following, 'not switched');
      return endedBy(pool, following, rebuild, io);
    }
    const switched = await switchProjection(pool, {
      live: rebuild.live,
      rebuild: rebuild.rebuild,
      lockTimeoutMs: SWITCH_LOCK_TIMEOUT_MS,
      catchUpMs: SWITCH_CATCH_UP_MS,
      stopWorkers: following.stop,
    });
    if (switched.isErr()) {
      await following.stop();
      throw postgresFailure(switched.error);
    }
    const outcome = switched.value;
    if (outcome.kind === 'switched') {
      writeLines(io.stdout, [switchedLine(rebuild.live, outcome)]);
      return EXIT.ok;
    }
    writeLines(io.stderr, [
      `signfold: switch postponed: ${outcome.reason}; appends went on; trying again in ${seconds(SWITCH_RETRY_MS)} s`,
    ]);
    await following.stop();
    if (signal.aborted) return stopped(following, 'not switched');
    await sleep(SWITCH_RETRY_MS, signal);
  }
};
