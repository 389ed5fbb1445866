/**
 * Per-token rate limits of the read API: a token bucket per client, so a
 * dashboard that refreshes in bursts is served while a runaway loop is told
 * to wait (429 with Retry-After) before it takes the process's time from the
 * deliveries.
 */

/** How much a client may ask. */
export interface RateLimits {
  /** Cost units regained per second. */
  readonly perSecond: number;
  /** Cost units a client may spend at once (the bucket's size). */
  readonly burst: number;
}

/**
 * 50 requests a second per token, 100 at once: well above a page or a
 * poller, and, a report costing {@link REPORT_COST}, two reports a second.
 */
export const DEFAULT_RATE_LIMITS: RateLimits = { perSecond: 50, burst: 100 };

/** What one `GET /report` costs: it folds the token's events, not one lookup. */
export const REPORT_COST = 25;

/** Buckets by client name; `now` is a monotonic clock in ms. */
export class RateLimiter {
  readonly #limits: RateLimits;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { level: number; at: number }>();

  /** A limiter allowing `limits` per client. */
  constructor(
    limits: RateLimits = DEFAULT_RATE_LIMITS,
    now: () => number = () => performance.now(),
  ) {
    this.#limits = limits;
    this.#now = now;
  }

  /**
   * Takes `cost` from `client`'s bucket: `0` when granted, else the whole
   * seconds to wait before the same request would be (at least 1). A refused
   * request takes nothing, so waiting the time said is enough.
   */
  take(client: string, cost = 1): number {
    const { perSecond, burst } = this.#limits;
    const now = this.#now();
    const bucket = this.#buckets.get(client) ?? { level: burst, at: now };
    bucket.level = Math.min(burst, bucket.level + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    this.#buckets.set(client, bucket);
    if (bucket.level >= cost) {
      bucket.level -= cost;
      return 0;
    }
    return Math.max(1, Math.ceil((cost - bucket.level) / perSecond));
  }
}
