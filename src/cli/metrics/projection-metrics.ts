/**
 * The projection and reactor metrics that `pg work`, `react` and `serve`
 * share, registered on a prom-client registry of the caller's. Counters are
 * moved by the process as it works; gauges are read at each scrape (from the
 * database, or from the runner in memory) through a {@link GaugeReader}. A
 * read that fails or outlasts {@link SCRAPE_READ_TIMEOUT_MS} leaves those
 * gauges out of the scrape, never numbers from an earlier one as if they were
 * now, and sets `signfold_gauges_up` to 0: the counters and the process
 * metrics are still served, since a database outage is exactly when the
 * deliveries answered 503 must be seen.
 */
import type { AttemptObserver, AttemptResult } from '../../core/reactors/attempt-result.js';
import type { ProjectorStats } from '../../engine/projector-types.js';
import type { ReactorEffectGauges } from '../../postgres/read/projection-gauges.js';

type PromClient = typeof import('prom-client');
type Registry = import('prom-client').Registry;
type Gauge = import('prom-client').Gauge;
type Counter = import('prom-client').Counter;

/** One lag series: per partition on PostgreSQL, one for the whole log on a file. */
export interface LagGauge {
  /** The partition's number, or `undefined` for a file log. */
  readonly partition?: number;
  readonly events: number;
  readonly seconds: number;
}

/** What one scrape reads. */
export interface ProjectionGauges {
  readonly lag: readonly LagGauge[];
  readonly effects: readonly ReactorEffectGauges[];
  /**
   * What the process has folded since it started, when it keeps the count
   * itself (the file engine's runner): the counter follows it at each scrape.
   */
  readonly stats?: ProjectorStats;
}

/** Reads the gauges of one scrape; rejects with a one-line reason. */
export type GaugeReader = () => Promise<ProjectionGauges>;

/**
 * The bound on a scrape's read: Prometheus gives up on a scrape after 10 s by
 * default, and a database that takes longer than this to count its lag is in
 * trouble that a 503 says better than a late answer.
 */
export const SCRAPE_READ_TIMEOUT_MS = 3000;

/** How a process feeds the metrics. */
export interface ProjectionMetrics {
  /** Adds a committed batch's counts to `signfold_events_total`. */
  counted(stats: ProjectorStats): void;
  /** Counts one effect attempt in `signfold_effect_attempts_total`. */
  readonly attempted: AttemptObserver;
  /** Reads the gauges for a scrape, within the bound; never rejects (see the module comment). */
  refresh(): Promise<void>;
}

/** What {@link registerProjectionMetrics} needs. */
export interface ProjectionMetricsOptions {
  readonly read: GaugeReader;
  /** The reactors this process runs: their effect series are reported from 0 on. */
  readonly reactors: readonly string[];
  /** Whether the lag has a `partition` label (PostgreSQL). */
  readonly partitioned: boolean;
  /** Whether this process folds events and attempts effects (it exports the counters then). */
  readonly counters: boolean;
  readonly now?: () => number;
}

const OUTCOMES = [
  ['applied', 'applied'],
  ['no-op', 'noOps'],
  ['conflict', 'conflicts'],
  ['invalid', 'invalid'],
] as const;
const RESULTS: readonly AttemptResult[] = ['succeeded', 'failed', 'interrupted'];
const STATES = ['pending', 'parked', 'running'] as const;

/** `promise`, or a rejection naming the bound once it passes. */
const within = <T>(promise: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};

/** The gauges read at each scrape. */
interface Gauges {
  readonly lagEvents: Gauge;
  readonly lagSeconds: Gauge;
  readonly effects: Gauge;
  readonly nextDue: Gauge;
  readonly up: Gauge;
}

/** Registers the gauges; their help names the lag of a partition or of a file log. */
const registerGauges = (prom: PromClient, registry: Registry, partitioned: boolean): Gauges => {
  const lagLabels = partitioned ? ['partition'] : [];
  return {
    lagEvents: new prom.Gauge({
      name: 'signfold_projection_lag_events',
      help: partitioned
        ? 'Events stored that the partition has not projected yet'
        : 'Records appended to the log since the reactors last read it to its end',
      labelNames: lagLabels,
      registers: [registry],
    }),
    lagSeconds: new prom.Gauge({
      name: 'signfold_projection_lag_seconds',
      help: partitioned
        ? 'How long the partition has waited for its oldest unprojected event (0 when none waits)'
        : 'How long the records not yet read have waited at most: since the last read began (0 when none waits)',
      labelNames: lagLabels,
      registers: [registry],
    }),
    effects: new prom.Gauge({
      name: 'signfold_effects',
      help: 'Effects per reactor by state: pending (waiting: a timer, ready or retrying later), running (being attempted), parked (waiting for an operator)',
      labelNames: ['reactor', 'state'],
      registers: [registry],
    }),
    nextDue: new prom.Gauge({
      name: 'signfold_timer_next_due_seconds',
      help: "Seconds until the reactor's earliest timer is due (negative: overdue); absent when it has none",
      labelNames: ['reactor'],
      registers: [registry],
    }),
    up: new prom.Gauge({
      name: 'signfold_gauges_up',
      help: 'Whether this scrape read the projection and effect gauges (1), or left them out because the read failed or took longer than 3 s (0)',
      registers: [registry],
    }),
  };
};

/**
 * Sets the gauges from one read. A reactor this process runs that the read
 * does not name is still reported, at 0: its series exist from the start.
 */
const setGauges = (
  gauges: Gauges,
  read: ProjectionGauges,
  reactors: readonly string[],
  at: number,
): void => {
  for (const row of read.lag) {
    const labels = row.partition === undefined ? {} : { partition: String(row.partition) };
    gauges.lagEvents.set(labels, row.events);
    gauges.lagSeconds.set(labels, row.seconds);
  }
  const seen = new Set<string>();
  for (const row of read.effects) {
    seen.add(row.reactor);
    for (const state of STATES) gauges.effects.set({ reactor: row.reactor, state }, row[state]);
    if (row.nextTimerMs !== null) {
      gauges.nextDue.set({ reactor: row.reactor }, (row.nextTimerMs - at) / 1000);
    }
  }
  for (const reactor of reactors) {
    if (seen.has(reactor)) continue;
    for (const state of STATES) gauges.effects.set({ reactor, state }, 0);
  }
};

/** The counters, when this process folds and attempts: every series from 0 on. */
const registerCounters = (
  prom: PromClient,
  registry: Registry,
  reactors: readonly string[],
): { events: Counter; attempts: Counter } => {
  const events = new prom.Counter({
    name: 'signfold_events_total',
    help: 'Events this process folded, by outcome: applied, no-op, conflict, invalid (bad lines and undecodable events)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const attempts = new prom.Counter({
    name: 'signfold_effect_attempts_total',
    help: 'Effect attempts this process made, by reactor and result: succeeded, failed, interrupted (cut short by a stop; run again)',
    labelNames: ['reactor', 'result'],
    registers: [registry],
  });
  for (const [outcome] of OUTCOMES) events.inc({ outcome }, 0);
  for (const reactor of reactors) {
    for (const result of RESULTS) attempts.inc({ reactor, result }, 0);
  }
  return { events, attempts };
};

/** Registers the metrics on `registry` (see the module comment). */
export const registerProjectionMetrics = (
  prom: PromClient,
  registry: Registry,
  options: ProjectionMetricsOptions,
): ProjectionMetrics => {
  const now = options.now ?? Date.now;
  const gauges = registerGauges(prom, registry, options.partitioned);
  const { events, attempts } = options.counters
    ? registerCounters(prom, registry, options.reactors)
    : { events: undefined, attempts: undefined };
  const counted = (stats: ProjectorStats): void => {
    for (const [outcome, member] of OUTCOMES) {
      if (stats[member] > 0) events?.inc({ outcome }, stats[member]);
    }
  };
  // The runner's own totals, as last added to the counter.
  let followed: ProjectorStats = {
    applied: 0,
    noOps: 0,
    conflicts: 0,
    invalid: 0,
    alreadyApplied: 0,
  };
  const follow = (stats: ProjectorStats): void => {
    counted({
      applied: stats.applied - followed.applied,
      noOps: stats.noOps - followed.noOps,
      conflicts: stats.conflicts - followed.conflicts,
      invalid: stats.invalid - followed.invalid,
      alreadyApplied: 0,
    });
    followed = stats;
  };
  // Scrapes that arrive while a read is under way share it: a slow database gets one read, not a pile.
  let reading: Promise<ProjectionGauges> | undefined;
  const refresh = async (): Promise<void> => {
    reading ??= options.read().finally(() => {
      reading = undefined;
    });
    gauges.lagEvents.reset();
    gauges.lagSeconds.reset();
    gauges.effects.reset();
    gauges.nextDue.reset();
    let read: ProjectionGauges;
    try {
      read = await within(reading, SCRAPE_READ_TIMEOUT_MS);
    } catch {
      gauges.up.set(0);
      return;
    }
    gauges.up.set(1);
    setGauges(gauges, read, options.reactors, now());
    if (read.stats !== undefined) follow(read.stats);
  };
  return { counted, attempted: (reactor, result) => attempts?.inc({ reactor, result }), refresh };
};
