/**
 * The retry rule: exponential backoff with "equal jitter" (half the delay is
 * fixed, half random), so retries of many failing effects spread out instead
 * of hitting a recovering service at once, yet never come sooner than half
 * the nominal delay.
 */
import type { RetryPolicy } from './reactor-types.js';

/** The range a retry delay is drawn from (ms, both inclusive). */
export interface DelayBounds {
  readonly minMs: number;
  readonly maxMs: number;
}

/**
 * The bounds of the delay after the `failures`-th failed attempt (≥ 1):
 * d = min(maxDelayMs, baseDelayMs·2^(failures−1)), bounds [ceil(d/2), d].
 */
export const retryDelayBounds = (policy: RetryPolicy, failures: number): DelayBounds => {
  const exponent = Math.max(0, Math.min(failures - 1, 1023));
  const nominal = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  return { minMs: Math.ceil(nominal / 2), maxMs: nominal };
};

/** What to do after a failed attempt. */
export type AfterFailure =
  | { readonly kind: 'retry'; readonly delayMs: number }
  | { readonly kind: 'park' };

/**
 * After `attemptsMade` attempts, the last one failed: park once the policy's
 * attempts are used up, else retry after a delay drawn within
 * `retryDelayBounds(policy, attemptsMade)`. `random` is injectable so tests
 * can pin the jitter.
 */
export const afterFailure = (
  policy: RetryPolicy,
  attemptsMade: number,
  random: () => number = Math.random,
): AfterFailure => {
  if (attemptsMade >= policy.maxAttempts) {
    return { kind: 'park' };
  }
  const { minMs, maxMs } = retryDelayBounds(policy, attemptsMade);
  const value = random();
  // A broken random source (NaN, out of range) still yields a delay within the bounds.
  const draw = Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 0;
  const delayMs = Math.min(maxMs, minMs + Math.floor(draw * (maxMs - minMs + 1)));
  return { kind: 'retry', delayMs };
};
