/**
 * Executes the effects of the `effects` table: claims due ones with
 * `FOR UPDATE SKIP LOCKED` and a lease (so several workers share them and a
 * worker that dies gives its claims up when the lease expires), runs them
 * through the executor core shared with the file engine (at most
 * `MAX_IN_FLIGHT` per process; it decides retries and parking), and writes
 * the outcomes in batches, each fenced by the lease owner. LISTEN/NOTIFY
 * wakes it when a batch makes effects ready.
 */
import type { AttemptObserver } from '../../core/reactors/attempt-result.js';
import type { Effect, Reactor } from '../../core/reactors/reactor-types.js';
import { startAttemptSpan } from '../../engine/attempt-span.js';
import {
  type AttemptVerdict,
  type ClaimedEffect,
  EffectExecutorCore,
  type EffectStorage,
  type ExecutionCounts,
} from '../../engine/reactors/effect-executor-core.js';
import { eventAttributes } from '../../engine/trace-attributes.js';
import type { TraceSpan, Tracing } from '../../engine/tracing.js';
import type { SchemaName } from '../schema-name.js';
import type { SqlPool } from '../sql-client.js';

/** Options of {@link PgEffectExecutor}. */
export interface PgEffectExecutorOptions {
  readonly schema: SchemaName;
  readonly workerId: string;
  readonly reactors: readonly Reactor[];
  /** How long a claim on an effect lasts without renewal (ms). */
  readonly leaseMs: number;
  readonly now?: () => number;
  readonly random?: () => number;
  /** Called after each outcome (to wake the loop). */
  readonly onSettled?: () => void;
  /** Told of each attempt's end (metrics). */
  readonly onAttempt?: AttemptObserver | undefined;
  /**
   * Tells of each attempt in a span, in the trace of the delivery whose
   * event planned the effect (its claim then also reads the event's delivery
   * id and sign request). Default: none.
   */
  readonly tracing?: Tracing;
}

/** A claimed row as the claim returns it (bigints as strings). */
interface ClaimedRow {
  readonly id: string;
  readonly reactor: string;
  readonly idempotency_key: string;
  readonly effect: Effect;
  readonly attempts: number;
  /** Read only when tracing: the effect's position and what its event says. */
  readonly position?: string;
  readonly delivery_id?: string | null;
  readonly sign_request_id?: string | null;
}

/** A claimed effect, and when its lease ends by this process's monotonic clock. */
interface Claimed extends ClaimedEffect<string> {
  readonly leaseEnd: number;
  readonly row: ClaimedRow;
}

/** What a traced claim reads besides the effect: its event's delivery and sign request. */
const tracedColumns = (schema: SchemaName): string =>
  `, e.position,
     (SELECT delivery_id FROM ${schema}.events WHERE position = e.position) AS delivery_id,
     (SELECT sign_request_id FROM ${schema}.events WHERE position = e.position) AS sign_request_id`;

/** The row an outcome writes; `state` `null`: the claim is given back, nothing counted. */
interface Outcome {
  readonly id: string;
  readonly state: 'done' | 'retrying' | 'parked' | null;
  readonly attempts: number;
  readonly error: string;
  readonly dueMs: number | null;
}

/** The row `verdict` writes for `claimed`. */
const outcomeOf = (claimed: Claimed, verdict: AttemptVerdict): Outcome => {
  const { id } = claimed;
  switch (verdict.kind) {
    case 'done':
      return { id, state: 'done', attempts: verdict.attempts, error: '', dueMs: null };
    case 'retrying': {
      const { attempts, error, dueAt } = verdict;
      return { id, state: 'retrying', attempts, error, dueMs: dueAt };
    }
    case 'parked':
      return { id, state: 'parked', attempts: verdict.attempts, error: verdict.error, dueMs: null };
    default:
      return { id, state: null, attempts: claimed.attempts, error: '', dueMs: null };
  }
};

/** Counters of one executor's attempts. */
export type PgExecutionCounts = ExecutionCounts;

/** See the module comment. */
export class PgEffectExecutor {
  readonly #pool: SqlPool;
  readonly #options: PgEffectExecutorOptions;
  readonly #core: EffectExecutorCore<Claimed>;
  #outcomes: Outcome[] = [];

  constructor(pool: SqlPool, options: PgEffectExecutorOptions) {
    this.#pool = pool;
    this.#options = options;
    const tracing = options.tracing?.enabled === true ? options.tracing : undefined;
    const storage: EffectStorage<Claimed> = {
      claimDue: (room, running) => this.#claim(room, running, tracing !== undefined),
      holds: (claimed) => performance.now() < claimed.leaseEnd,
      record: (claimed, verdict) => {
        this.#outcomes.push(outcomeOf(claimed, verdict));
      },
      ...(tracing === undefined
        ? {}
        : { startSpan: (claimed, attempt) => startSpan(tracing, claimed.row, attempt) }),
    };
    this.#core = new EffectExecutorCore({ ...options, now: options.now ?? Date.now, storage });
  }

  /** Effects running in this process. */
  get running(): number {
    return this.#core.running;
  }

  /** Outcomes not yet written. */
  get unwritten(): number {
    return this.#outcomes.length;
  }

  /** Attempts so far. */
  counts(): PgExecutionCounts {
    return this.#core.counts();
  }

  /**
   * Claims due effects for the free slots and starts them; resolves to how
   * many. An effect this executor still runs, or whose outcome it has not
   * written yet, is never claimed again, even if its lease lapsed (a turn of
   * the loop slower than the renewals): it would run twice at once, or again
   * after it succeeded.
   *
   * An effect is executed only while its claim holds: a worker stopped
   * (SIGSTOP, a long GC pause, a suspended VM) between the claim and the
   * start may wake after its lease lapsed and another worker ran the effect,
   * so a claim whose lease ran out by this process's monotonic clock (which
   * counts a stop too) is given back unexecuted. The lease is counted from
   * before the claim was sent, so this side's deadline falls before the
   * server's.
   */
  claimAndStart(): Promise<number> {
    return this.#core.claimAndStart();
  }

  async #claim(
    room: number,
    running: ReadonlyMap<string, unknown>,
    traced: boolean,
  ): Promise<Claimed[]> {
    const { schema, workerId, leaseMs } = this.#options;
    const ours = [...running.keys(), ...this.#outcomes.map((outcome) => outcome.id)];
    const leaseEnd = performance.now() + leaseMs;
    const { rows } = await this.#pool.query<ClaimedRow>(
      `UPDATE ${schema}.effects AS e
          SET lease_owner = $1, lease_until = clock_timestamp() + $2 * interval '1 millisecond'
        WHERE e.id IN (
          SELECT id FROM ${schema}.effects
           WHERE state IN ('ready', 'retrying') AND coalesce(due_ms, -1) <= $3
             AND reactor = ANY($4::text[])
             AND (lease_until IS NULL OR lease_until < clock_timestamp())
             AND id <> ALL($6::bigint[])
           ORDER BY coalesce(due_ms, -1), id
           LIMIT $5 FOR UPDATE SKIP LOCKED)
      RETURNING e.id, e.reactor, e.idempotency_key, e.effect, e.attempts${traced ? tracedColumns(schema) : ''}`,
      [workerId, leaseMs, (this.#options.now ?? Date.now)(), this.#core.reactorNames(), room, ours],
    );
    return rows.map((row) => ({
      id: row.id,
      reactor: row.reactor,
      idempotencyKey: row.idempotency_key,
      effect: row.effect,
      attempts: row.attempts,
      leaseEnd,
      row,
    }));
  }

  /**
   * Writes the outcomes so far in one statement, fenced by the lease owner
   * (an effect whose claim another worker took is not overwritten), then
   * frees their slots.
   */
  async flush(): Promise<void> {
    const outcomes = this.#outcomes;
    if (outcomes.length === 0) return;
    this.#outcomes = [];
    try {
      await this.#pool.query(
        `UPDATE ${this.#options.schema}.effects AS e
            SET state = coalesce(u.state, e.state), attempts = u.attempts,
                last_error = CASE WHEN u.state IS NULL THEN e.last_error ELSE u.error END,
                due_ms = CASE WHEN u.state IS NULL THEN e.due_ms ELSE u.due END,
                lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
           FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::bigint[])
                AS u(id, state, attempts, error, due)
          WHERE e.id = u.id AND e.lease_owner = $6`,
        [
          outcomes.map((o) => o.id),
          outcomes.map((o) => o.state),
          outcomes.map((o) => o.attempts),
          outcomes.map((o) => o.error),
          outcomes.map((o) => o.dueMs),
          this.#options.workerId,
        ],
      );
    } catch (cause) {
      // Not written: keep them for the next flush (their leases stay ours meanwhile).
      this.#outcomes = [...outcomes, ...this.#outcomes];
      throw cause;
    }
    this.#core.durable(outcomes.length);
  }

  /** Renews the leases of the effects running here, so a slow one is not taken over. */
  async renewLeases(): Promise<void> {
    if (this.#core.running === 0) return;
    await this.#pool.query(
      `UPDATE ${this.#options.schema}.effects
          SET lease_until = clock_timestamp() + $3 * interval '1 millisecond'
        WHERE id = ANY($1::bigint[]) AND lease_owner = $2`,
      [this.#core.runningIds(), this.#options.workerId, this.#options.leaseMs],
    );
  }

  /** When (ms epoch) the next ready or retrying effect of these reactors is due; `null` if none waits. */
  async nextDue(): Promise<number | null> {
    const { rows } = await this.#pool.query<{ due: string | null; waiting: string }>(
      `SELECT min(coalesce(due_ms, 0)) AS due, count(*) AS waiting FROM ${this.#options.schema}.effects
        WHERE state IN ('ready', 'retrying') AND reactor = ANY($1::text[])`,
      [this.#core.reactorNames()],
    );
    const row = rows[0];
    return row === undefined || Number(row.waiting) === 0 ? null : Number(row.due ?? 0);
  }

  /** Stops claiming, fires `ctx.signal`, waits up to `graceMs` for running effects; resolves to those left. */
  stop(graceMs: number): Promise<number> {
    return this.#core.stop(graceMs);
  }
}

/** The span of an attempt, in the trace of the delivery whose event planned the effect. */
const startSpan = (tracing: Tracing, row: ClaimedRow, attempt: number): TraceSpan => {
  const signRequestId = row.sign_request_id ?? undefined;
  return startAttemptSpan(tracing, {
    reactor: row.reactor,
    id: row.id,
    position: Number(row.position),
    attempt,
    deliveryId: row.delivery_id ?? undefined,
    attributes: eventAttributes({
      signRequestId: signRequestId === undefined ? undefined : Number(signRequestId),
    }),
  });
};
