/**
 * Heals what the channel lost: asks the service's API (through a function
 * the application writes) for sign requests, compares each with the
 * projection, and appends one observation record per request the API shows
 * to be further along. The projector then applies the record like any other
 * (see `Observation`), durably and replayably.
 *
 * Every wait is bounded: each fetch has a deadline and is abandoned when it
 * passes; fetches start at most `ratePerSecond` a second. A fetch that fails,
 * times out or answers what does not decode is reported for its request and
 * stored nowhere; the others go on.
 */

import { formatDecodeError } from '../core/decode-error.js';
import type { CompanyId, SignRequestId } from '../core/ids.js';
import { observationRecord } from '../core/observations/observation-record.js';
import { compareSignRequest, type Difference } from '../core/projections/compare-sign-request.js';
import { loadSignRequest } from '../core/projections/load-sign-request.js';
import type { ProjectionState } from '../core/projections/projection-state.js';
import type { SignRequestView } from '../core/projections/records.js';
import type { MinimalAbortSignal, RuntimeAbortSignal } from '../core/reactors/reactor-types.js';
import { decodeSignRequest } from '../core/sign-request/decode-sign-request.js';
import type { SignRequest } from '../core/sign-request/sign-request.js';
import type { EventLog } from './event-log.js';

/**
 * Fetches the API's representation of one sign request
 * (docs/service-interface.md): a JSON value, or its text. Its `signal` fires
 * at the fetch's deadline; it is the runtime's `AbortSignal`, so
 * `fetch(url, { signal })` compiles under `--strict` with the DOM library or
 * `@types/node` (see {@link RuntimeAbortSignal}).
 */
export type FetchSignRequest = (
  signRequestId: SignRequestId,
  context: { readonly signal: RuntimeAbortSignal },
) => Promise<unknown>;

/** Options of {@link reconcile}. */
export interface ReconcileOptions {
  /** The projection to compare with: the log replayed up to now. */
  readonly state: ProjectionState;
  /** Where observation records go; not needed with `dryRun`. */
  readonly log?: Pick<EventLog, 'append'>;
  readonly fetch: FetchSignRequest;
  /**
   * The requests to ask about. Default: every open request (`draft` or
   * `sent`, not deleted) that has been open longer than `openLongerThanMs`.
   */
  readonly signRequestIds?: readonly number[];
  /** Default 24 hours. Measured from the request's `sentAt` (else its last event; a request with no time at all qualifies). */
  readonly openLongerThanMs?: number;
  /** At most this many fetches start in a second (default 5). */
  readonly ratePerSecond?: number;
  /** Deadline of each fetch, in milliseconds (default 10,000); its `signal` fires then. */
  readonly fetchTimeoutMs?: number;
  /** Compare only: append nothing. */
  readonly dryRun?: boolean;
  /**
   * The clock of record (default `Date.now`): which requests are stale, and when each was
   * fetched. The pace of the fetches keeps to the monotonic clock.
   */
  readonly now?: () => number;
  /** Stops starting fetches; the one in flight is abandoned. */
  readonly signal?: MinimalAbortSignal;
  /** Called with each request's result as soon as it is known. */
  readonly onResult?: (result: ReconcileResult) => void;
}

/** What became of one sign request. */
export type ReconcileResult =
  /** The service and the projection agree. */
  | { readonly kind: 'agrees'; readonly signRequestId: SignRequestId }
  /** An observation record was appended at `position` (`undefined` with `dryRun`). */
  | {
      readonly kind: 'repaired';
      readonly signRequestId: SignRequestId;
      readonly differences: readonly Difference[];
      readonly position: number | undefined;
    }
  /**
   * They differ, but an observation would close none of the differences
   * (the service reports a status behind the projection's, a deleted
   * request, another company's request, a participant it no longer lists):
   * nothing is appended, since it would only be refused.
   */
  | {
      readonly kind: 'unrepairable';
      readonly signRequestId: SignRequestId;
      readonly differences: readonly Difference[];
      readonly reason: string;
    }
  /** The fetch failed, timed out or answered what does not decode, or the append failed. */
  | { readonly kind: 'failed'; readonly signRequestId: SignRequestId; readonly reason: string };

/** The results of a {@link reconcile} run, in the order the requests were asked about. */
export interface ReconcileSummary {
  readonly results: readonly ReconcileResult[];
  /** How many of each kind. */
  readonly counts: Readonly<Record<ReconcileResult['kind'], number>>;
  /** Set when `signal` stopped the run before every request was asked about. */
  readonly stopped: boolean;
}

const DAY_MS = 86_400_000;

const isOpen = (view: SignRequestView): boolean =>
  !view.deleted && (view.status === 'draft' || view.status === 'sent');

const openSince = (view: SignRequestView): number => {
  const time = view.sentAt ?? view.lastEventAt;
  const ms = time === null ? Number.NaN : Date.parse(time);
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
};

/**
 * The open requests older than `ageMs` at `nowMs`, by id: the ones
 * {@link reconcile} asks about when given no ids.
 */
export const staleOpenRequests = (
  state: ProjectionState,
  ageMs: number,
  nowMs: number,
): SignRequestId[] =>
  [...state.signRequests.values()]
    .filter((view) => isOpen(view) && openSince(view) <= nowMs - ageMs)
    .map((view) => view.id)
    .sort((a, b) => a - b);

const messageOf = (thrown: unknown): string => {
  try {
    return thrown instanceof Error ? thrown.message : String(thrown);
  } catch {
    return 'an unprintable error';
  }
};

/** The listener methods of a real AbortSignal, where the runtime gives one. */
interface Listenable {
  addEventListener?(type: 'abort', listener: () => void): void;
  removeEventListener?(type: 'abort', listener: () => void): void;
}

/** Waits `ms`, or less when `signal` fires; leaves no listener behind. */
const sleep = (ms: number, signal: MinimalAbortSignal | undefined): Promise<void> =>
  new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted === true) {
      resolve();
      return;
    }
    const target = signal as Listenable | undefined;
    const done = (): void => {
      clearTimeout(timer);
      target?.removeEventListener?.('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    target?.addEventListener?.('abort', done);
  });

/**
 * Waits until the monotonic clock reads `at` (ms, `performance.now()`), or less when `signal`
 * fires. Timers alone fall short: Node counts a timer's delay from the time its event loop read
 * at the start of the turn, so one set after some work in that turn fires that much early (5 ms
 * was seen on a loaded machine), and the pace would break its promise.
 */
const sleepUntil = async (at: number, signal: MinimalAbortSignal | undefined): Promise<void> => {
  while (signal?.aborted !== true && performance.now() < at) {
    await sleep(Math.ceil(at - performance.now()), signal);
  }
};

/** Calls `fetch` with a deadline: the answer, or why there is none. */
const fetchWithin = async (
  fetch: FetchSignRequest,
  id: SignRequestId,
  timeoutMs: number,
): Promise<
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string }
> => {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<{ readonly ok: false; readonly reason: string }>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`no answer within ${timeoutMs} ms`));
      resolve({ ok: false, reason: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
  });
  try {
    const answer = Promise.resolve()
      .then(() => fetch(id, { signal: controller.signal }))
      .then(
        (value) => ({ ok: true as const, value }),
        (thrown: unknown) => ({ ok: false as const, reason: `fetch failed: ${messageOf(thrown)}` }),
      );
    return await Promise.race([answer, deadline]);
  } finally {
    clearTimeout(timer);
  }
};

/** The answer as a decoded representation of `id`, or why it is not one. */
const decodeAnswer = (
  id: SignRequestId,
  value: unknown,
):
  | { readonly ok: true; readonly value: SignRequest }
  | { readonly ok: false; readonly reason: string } => {
  let json = value;
  if (typeof value === 'string') {
    try {
      json = JSON.parse(value);
    } catch (thrown) {
      return { ok: false, reason: `the answer is not JSON: ${messageOf(thrown)}` };
    }
  }
  const decoded = decodeSignRequest(json);
  if (decoded.isErr()) {
    const problems = decoded.error.map((e) => formatDecodeError(e, '(root)'));
    return { ok: false, reason: `the answer is not a sign request: ${problems.join('; ')}` };
  }
  if (decoded.value.id !== id) {
    return {
      ok: false,
      reason: `asked for sign request ${id}, the answer is sign request ${decoded.value.id}`,
    };
  }
  return { ok: true, value: decoded.value };
};

/** Compares one answer and, unless a dry run, appends its observation. */
const settle = async (
  options: ReconcileOptions,
  id: SignRequestId,
  reported: SignRequest,
  fetchedAt: Date,
): Promise<ReconcileResult> => {
  const { state } = options;
  const differences = compareSignRequest(state, reported);
  if (differences.length === 0) return { kind: 'agrees', signRequestId: id };
  const companyId = (state.signRequests.get(id)?.companyId ?? undefined) as CompanyId | undefined;
  const origin = companyId === undefined ? {} : { companyId };
  const trial = loadSignRequest(state, reported, origin);
  if (trial.isErr()) {
    const reason = `the service's representation is refused: ${trial.error.kind}: ${trial.error.message}`;
    return { kind: 'unrepairable', signRequestId: id, differences, reason };
  }
  const left = new Set(compareSignRequest(trial.value, reported).map((d) => d.message));
  if (differences.every((d) => left.has(d.message))) {
    const reason = 'an observation would close none of these differences';
    return { kind: 'unrepairable', signRequestId: id, differences, reason };
  }
  if (options.dryRun === true || options.log === undefined) {
    return { kind: 'repaired', signRequestId: id, differences, position: undefined };
  }
  const appended = await options.log.append(observationRecord(reported, { fetchedAt, ...origin }));
  if (appended.isErr()) {
    return {
      kind: 'failed',
      signRequestId: id,
      reason: `append failed: ${appended.error.message}`,
    };
  }
  return { kind: 'repaired', signRequestId: id, differences, position: appended.value.position };
};

const checkOptions = (options: ReconcileOptions): void => {
  const positive = (value: number | undefined, name: string): void => {
    if (value !== undefined && !(value > 0 && Number.isFinite(value))) {
      throw new RangeError(`${name} must be a positive number (got ${String(value)})`);
    }
  };
  positive(options.ratePerSecond, 'ratePerSecond');
  positive(options.fetchTimeoutMs, 'fetchTimeoutMs');
  if (options.openLongerThanMs !== undefined && !(options.openLongerThanMs >= 0)) {
    throw new RangeError(`openLongerThanMs must be ≥ 0 (got ${String(options.openLongerThanMs)})`);
  }
  if (typeof options.fetch !== 'function') throw new TypeError('fetch must be a function');
  if (options.dryRun !== true && options.log === undefined) {
    throw new TypeError('log is needed unless dryRun is set');
  }
};

/**
 * Asks the service about sign requests and appends an observation record for
 * each one it shows further along than the projection (see the module
 * comment and docs/engine.md#repair-from-the-api). Running it again once the
 * records are applied appends nothing: the projection then agrees. Throws
 * only on invalid options (a programming error); every failure of a request
 * is a `failed` result.
 *
 * @example
 * ```ts
 * import { createProjector, reconcile } from 'signfold';
 * import { createMemoryEventLog } from 'signfold/file';
 *
 * const log = createMemoryEventLog();
 * const projector = createProjector();
 * await projector.replay(log);
 * const summary = await reconcile({
 *   state: projector.state(),
 *   log,
 *   fetch: async (id, { signal }) => (await fetch(`https://api.example.test/sign-requests/${id}`, { signal })).json(),
 * });
 * console.log(summary.counts); // { agrees: 0, repaired: 0, unrepairable: 0, failed: 0 }
 * ```
 */
export const reconcile = async (options: ReconcileOptions): Promise<ReconcileSummary> => {
  checkOptions(options);
  const now = options.now ?? Date.now;
  const ids =
    options.signRequestIds === undefined
      ? staleOpenRequests(options.state, options.openLongerThanMs ?? DAY_MS, now())
      : [...new Set(options.signRequestIds as readonly SignRequestId[])];
  const interval = 1000 / (options.ratePerSecond ?? 5);
  const timeoutMs = options.fetchTimeoutMs ?? 10_000;
  const results: ReconcileResult[] = [];
  const counts = { agrees: 0, repaired: 0, unrepairable: 0, failed: 0 };
  let nextStart = Number.NEGATIVE_INFINITY;
  let stopped = false;
  for (const id of ids) {
    await sleepUntil(nextStart, options.signal);
    if (options.signal?.aborted === true) {
      stopped = true;
      break;
    }
    // Paced by the monotonic clock, not `now`: a clock of record may be a test's fixed one, or
    // the wall clock, which can step.
    nextStart = performance.now() + interval;
    const fetched = await fetchWithin(options.fetch, id, timeoutMs);
    const fetchedAt = new Date(now());
    const decoded = fetched.ok ? decodeAnswer(id, fetched.value) : fetched;
    const result: ReconcileResult = decoded.ok
      ? await settle(options, id, decoded.value, fetchedAt)
      : { kind: 'failed', signRequestId: id, reason: decoded.reason };
    results.push(result);
    counts[result.kind] += 1;
    options.onResult?.(result);
  }
  return { results, counts, stopped };
};
