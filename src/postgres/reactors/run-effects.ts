/**
 * The executor's loop: claim, run, write outcomes, sleep until an effect
 * settles, a batch announces ready effects (`NOTIFY`), the next one is due,
 * or the poll interval passes; until stopped, or with `drain` until no
 * effect of these reactors is ready or retrying.
 */
import { err, ok, type Result, safeTry } from 'neverthrow';
import { databaseError, type PostgresError } from '../postgres-error.js';
import { connect, type SqlPool, type SqlPoolClient } from '../sql-client.js';
import { EFFECTS_CHANNEL } from './migration-reactors.js';
import type { PgEffectExecutor, PgExecutionCounts } from './pg-effect-executor.js';

/** Options of {@link runEffects}. */
export interface RunEffectsOptions {
  readonly schema: string;
  /** Stops once aborted: no new claim; running effects get `graceMs`. */
  readonly signal: AbortSignal;
  readonly drain: boolean;
  /** Longest sleep without a notification (ms). */
  readonly pollMs: number;
  /** How often leases of running effects are renewed (ms). */
  readonly renewMs: number;
  readonly graceMs: number;
  /** Wakes the loop; set by {@link runEffects} for the executor's `onSettled`. */
  readonly wake: { current: () => void };
  /** Called after each turn of the loop whose queries all succeeded (a supervisor ends an outage there). */
  readonly onTurn?: () => void;
}

type ListeningClient = SqlPoolClient & {
  on(
    event: 'notification',
    listener: (message: { channel: string; payload?: string }) => void,
  ): unknown;
};

/** What a run of the loop did: its executor's counts, and the effects left running at the stop. */
export type RunOutcome = PgExecutionCounts & { readonly abandoned: number };

/** {@link runEffects} on a client of its own, which it releases at the end. */
const runOn = async (
  listener: ListeningClient,
  executor: PgEffectExecutor,
  options: RunEffectsOptions,
): Promise<Result<RunOutcome, PostgresError>> => {
  let woken = false;
  let resolveSleep: (() => void) | undefined;
  const wake = (): void => {
    woken = true;
    resolveSleep?.();
  };
  options.wake.current = wake;
  listener.on('notification', (message) => {
    if (message.channel === EFFECTS_CHANNEL && message.payload === options.schema) wake();
  });
  options.signal.addEventListener('abort', wake);
  let lastRenew = performance.now();
  let failure: Error | undefined;
  try {
    await listener.query(`LISTEN ${EFFECTS_CHANNEL}`);
    while (!options.signal.aborted) {
      woken = false;
      await executor.claimAndStart();
      await executor.flush();
      if (performance.now() - lastRenew >= options.renewMs) {
        lastRenew = performance.now();
        await executor.renewLeases();
        // A listening connection gone silent or killed raises nothing here
        // (notifications just stop): a query with a deadline finds out.
        await listener.query('SELECT 1');
      }
      options.onTurn?.();
      let sleepMs = options.pollMs;
      if (executor.running === 0 && executor.unwritten === 0) {
        const due = await executor.nextDue();
        if (due === null && options.drain) break;
        if (due !== null) sleepMs = Math.min(sleepMs, Math.max(0, due - Date.now()));
      }
      sleepMs = Math.min(sleepMs, options.renewMs);
      if (!woken) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, sleepMs);
          resolveSleep = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        resolveSleep = undefined;
      }
    }
    const abandoned = await executor.stop(options.graceMs);
    await executor.flush();
    return ok({ ...executor.counts(), abandoned });
  } catch (cause) {
    failure = cause instanceof Error ? cause : new Error(String(cause));
    await executor.stop(0);
    return err(databaseError(cause, 'executing effects'));
  } finally {
    options.signal.removeEventListener('abort', wake);
    if (failure === undefined) {
      await listener.query(`UNLISTEN ${EFFECTS_CHANNEL}`).catch(() => undefined);
    }
    // After a failure the connection may be dead or stuck: destroyed, not reused.
    listener.release(failure ?? false);
  }
};

/** Runs `executor` (see the module comment); resolves to its counts and the effects left running at a stop. */
export const runEffects = async (
  pool: SqlPool,
  executor: PgEffectExecutor,
  options: RunEffectsOptions,
): Promise<Result<RunOutcome, PostgresError>> =>
  safeTry(async function* () {
    const listener = yield* await connect(pool);
    return await runOn(listener as ListeningClient, executor, options);
  });
