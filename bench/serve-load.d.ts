/** Type declarations for `bench/serve-load.js` (plain ESM JavaScript), for the tests. */

/** One request of an open loop. */
export interface LoadRequest {
  /** Left out (in JavaScript) for a GET of the read API. */
  readonly body: Uint8Array | string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Default POST. */
  readonly method?: string;
  /** Default: the path of the loop's URL. */
  readonly path?: string;
  /** Recorded with the result, to match answers with what the store holds. */
  readonly deliveryId?: string;
}

/** What happened to one request. */
export interface LoadResult {
  readonly index: number;
  readonly deliveryId: string | undefined;
  /** The HTTP status, or 0 when no answer came (connection refused or reset, `timeout`). */
  readonly status: number;
  readonly error: string | undefined;
  /** `performance.now()` instants: when it was due, when it was sent. */
  readonly scheduledAt: number;
  readonly sentAt: number;
  /** From send to the end of the answer (or the error). */
  readonly ms: number;
  /** From the scheduled instant to the end of the answer. */
  readonly fromScheduleMs: number;
  /** The answer's body ('' without one). */
  readonly body: string;
}

export interface OpenLoopOptions {
  /** The endpoint, e.g. `http://127.0.0.1:PORT/webhooks`. */
  readonly url: string;
  /** Requests per second. */
  readonly rate: number;
  /** At most this many requests. */
  readonly count: number;
  /** And none scheduled after this many seconds (default: no time bound). */
  readonly seconds?: number;
  /** Time limit of each request from its send (default 10,000). */
  readonly timeoutMs?: number;
  /** Keep-alive connections at most (default 256). */
  readonly maxSockets?: number;
  readonly make: (index: number) => LoadRequest;
  readonly onResult?: (result: LoadResult) => void;
  /** Stops scheduling when aborted (requests in flight still finish). */
  readonly signal?: AbortSignal;
}

/** Runs an open loop; resolves with one result per request sent, in send order. */
export function openLoop(options: OpenLoopOptions): Promise<LoadResult[]>;

/** The `p`th percentile (0–100), nearest rank; NaN when empty. */
export function percentile(values: readonly number[], p: number): number;

/** Figures of one run. */
export interface LoadSummary {
  readonly sent: number;
  readonly ok: number;
  readonly errors: number;
  readonly byStatus: Readonly<Record<string, number>>;
  /** Requests without an answer, by error (`timeout`, `ECONNRESET`, `ECONNREFUSED`…). */
  readonly byError: Readonly<Record<string, number>>;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly p99FromSchedule: number;
}

/** Requests, answers per status, achieved 2xx/s, latency percentiles of the 2xx answers. */
export function summarize(results: readonly LoadResult[]): LoadSummary;
