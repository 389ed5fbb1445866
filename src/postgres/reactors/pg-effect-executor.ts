/**
 * Executes the effects of the `effects` table: claims due ones with
 * `FOR UPDATE SKIP LOCKED` and a lease (so several workers share them and a
 * worker that dies gives its claims up when the lease expires), runs them
 * with `attemptEffect`, at most `MAX_IN_FLIGHT` per process, and writes the
 * outcomes in batches, each fenced by the lease owner. LISTEN/NOTIFY wakes
 * it when a batch makes effects ready.
 */
import { attemptEffect } from '../../core/reactors/attempt-effect.js';
import type { AttemptObserver } from '../../core/reactors/attempt-result.js';
import { InFlightLimit, settleWithin } from '../../core/reactors/in-flight.js';
import type { Effect, Reactor } from '../../core/reactors/reactor-types.js';
import { afterFailure } from '../../core/reactors/retry-policy.js';
import { endAttemptSpan, startAttemptSpan } from '../../engine/attempt-span.js';
import { eventAttributes } from '../../engine/trace-attributes.js';
import type { Tracing } from '../../engine/tracing.js';
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

interface Claimed {
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

/** What a traced claim reads besides the effect: its event's delivery and sign request. */
const tracedColumns = (schema: SchemaName): string =>
  `, e.position,
     (SELECT delivery_id FROM ${schema}.events WHERE position = e.position) AS delivery_id,
     (SELECT sign_request_id FROM ${schema}.events WHERE position = e.position) AS sign_request_id`;

interface Outcome {
  readonly id: string;
  /** `null`: interrupted by the shutdown; the claim is given back, nothing counted. */
  readonly state: 'done' | 'retrying' | 'parked' | null;
  readonly attempts: number;
  readonly error: string;
  readonly dueMs: number | null;
}

/** Counters of one executor's attempts. */
export interface PgExecutionCounts {
  readonly succeeded: number;
  readonly failed: number;
  readonly interrupted: number;
}

/** See the module comment. */
export class PgEffectExecutor {
  readonly #pool: SqlPool;
  readonly #options: PgEffectExecutorOptions;
  readonly #reactors: ReadonlyMap<string, Reactor>;
  readonly #limit = new InFlightLimit();
  readonly #running = new Map<string, Promise<void>>();
  readonly #controller = new AbortController();
  #outcomes: Outcome[] = [];
  readonly #counts = { succeeded: 0, failed: 0, interrupted: 0 };
  readonly #traced: boolean;

  constructor(pool: SqlPool, options: PgEffectExecutorOptions) {
    this.#pool = pool;
    this.#options = options;
    this.#reactors = new Map(options.reactors.map((reactor) => [reactor.name, reactor]));
    this.#traced = options.tracing?.enabled === true;
  }

  get #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /** Effects running in this process. */
  get running(): number {
    return this.#running.size;
  }

  /** Outcomes not yet written. */
  get unwritten(): number {
    return this.#outcomes.length;
  }

  /** Attempts so far. */
  counts(): PgExecutionCounts {
    return { ...this.#counts };
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
  async claimAndStart(): Promise<number> {
    if (this.#controller.signal.aborted || this.#limit.available === 0) return 0;
    const { schema, workerId, leaseMs } = this.#options;
    const ours = [...this.#running.keys(), ...this.#outcomes.map((outcome) => outcome.id)];
    const leaseEnd = performance.now() + leaseMs;
    const { rows } = await this.#pool.query<Claimed>(
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
      RETURNING e.id, e.reactor, e.idempotency_key, e.effect, e.attempts${this.#traced ? tracedColumns(schema) : ''}`,
      [workerId, leaseMs, this.#now, [...this.#reactors.keys()], this.#limit.available, ours],
    );
    for (const row of rows) {
      if (!this.#limit.tryAcquire()) break;
      this.#running.set(row.id, this.#run(row, leaseEnd));
    }
    return rows.length;
  }

  /** Gives back a claim whose lease lapsed before its execution: no attempt, nothing counted. */
  #giveBack(row: Claimed): Promise<void> {
    this.#outcomes.push({
      id: row.id,
      state: null,
      attempts: row.attempts,
      error: '',
      dueMs: null,
    });
    this.#running.delete(row.id);
    this.#options.onSettled?.();
    return Promise.resolve();
  }

  async #run(row: Claimed, leaseEnd: number): Promise<void> {
    // Checked with no await between it and the effect's start (attemptEffect calls execute at once).
    if (performance.now() >= leaseEnd) return this.#giveBack(row);
    const reactor = this.#reactors.get(row.reactor) as Reactor;
    const attempt = row.attempts + 1;
    const span = this.#traced ? this.#startSpan(row, attempt) : undefined;
    const outcome = await attemptEffect(reactor, row.effect, {
      idempotencyKey: row.idempotency_key,
      attempt,
      signal: this.#controller.signal,
    });
    if (outcome.ok) {
      this.#counts.succeeded += 1;
      this.#options.onAttempt?.(row.reactor, 'succeeded');
      this.#outcomes.push({ id: row.id, state: 'done', attempts: attempt, error: '', dueMs: null });
    } else if (this.#controller.signal.aborted) {
      this.#counts.interrupted += 1;
      this.#options.onAttempt?.(row.reactor, 'interrupted');
      this.#outcomes.push({
        id: row.id,
        state: null,
        attempts: row.attempts,
        error: '',
        dueMs: null,
      });
    } else {
      this.#counts.failed += 1;
      this.#options.onAttempt?.(row.reactor, 'failed');
      const next = afterFailure(reactor.retry, attempt, this.#options.random);
      this.#outcomes.push(
        next.kind === 'park'
          ? { id: row.id, state: 'parked', attempts: attempt, error: outcome.error, dueMs: null }
          : {
              id: row.id,
              state: 'retrying',
              attempts: attempt,
              error: outcome.error,
              dueMs: this.#now + next.delayMs,
            },
      );
    }
    if (span !== undefined) {
      const ended = outcome.ok
        ? 'succeeded'
        : this.#controller.signal.aborted
          ? 'interrupted'
          : 'failed';
      endAttemptSpan(span, ended, outcome.ok ? undefined : outcome.error);
    }
    this.#running.delete(row.id);
    this.#options.onSettled?.();
  }

  #startSpan(row: Claimed, attempt: number) {
    const signRequestId = row.sign_request_id ?? undefined;
    return startAttemptSpan(this.#options.tracing as Tracing, {
      reactor: row.reactor,
      id: row.id,
      position: Number(row.position),
      attempt,
      deliveryId: row.delivery_id ?? undefined,
      attributes: eventAttributes({
        signRequestId: signRequestId === undefined ? undefined : Number(signRequestId),
      }),
    });
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
    this.#limit.release(outcomes.length);
  }

  /** Renews the leases of the effects running here, so a slow one is not taken over. */
  async renewLeases(): Promise<void> {
    if (this.#running.size === 0) return;
    await this.#pool.query(
      `UPDATE ${this.#options.schema}.effects
          SET lease_until = clock_timestamp() + $3 * interval '1 millisecond'
        WHERE id = ANY($1::bigint[]) AND lease_owner = $2`,
      [[...this.#running.keys()], this.#options.workerId, this.#options.leaseMs],
    );
  }

  /** When (ms epoch) the next ready or retrying effect of these reactors is due; `null` if none waits. */
  async nextDue(): Promise<number | null> {
    const { rows } = await this.#pool.query<{ due: string | null; waiting: string }>(
      `SELECT min(coalesce(due_ms, 0)) AS due, count(*) AS waiting FROM ${this.#options.schema}.effects
        WHERE state IN ('ready', 'retrying') AND reactor = ANY($1::text[])`,
      [[...this.#reactors.keys()]],
    );
    const row = rows[0];
    return row === undefined || Number(row.waiting) === 0 ? null : Number(row.due ?? 0);
  }

  /** Stops claiming, fires `ctx.signal`, waits up to `graceMs` for running effects; resolves to those left. */
  stop(graceMs: number): Promise<number> {
    this.#controller.abort();
    return settleWithin(this.#running, graceMs);
  }
}
