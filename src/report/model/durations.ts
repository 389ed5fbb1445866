/** Summaries of durations: median, 90th percentile, and a histogram with human-sized bins. */
import type { DurationBin, DurationSummary } from './report-model.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Upper bounds (exclusive) of the histogram bins; the last bin is open-ended. */
const BINS: readonly { readonly below: number; readonly label: string }[] = [
  { below: MINUTE, label: '< 1 min' },
  { below: 5 * MINUTE, label: '1–5 min' },
  { below: 15 * MINUTE, label: '5–15 min' },
  { below: HOUR, label: '15–60 min' },
  { below: 4 * HOUR, label: '1–4 h' },
  { below: DAY, label: '4–24 h' },
  { below: 3 * DAY, label: '1–3 d' },
  { below: 7 * DAY, label: '3–7 d' },
  { below: 30 * DAY, label: '7–30 d' },
  { below: Number.POSITIVE_INFINITY, label: '≥ 30 d' },
];

/** The nearest-rank quantile `q` (0 < q ≤ 1) of ascending `sorted`, `undefined` if empty. */
export const quantile = (sorted: readonly number[], q: number): number | undefined => {
  if (sorted.length === 0) return undefined;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1];
};

/** Count, median and p90 of `durations` (milliseconds, any order). */
export const summarizeDurations = (durations: readonly number[]): DurationSummary => {
  const sorted = [...durations].sort((a, b) => a - b);
  return { count: sorted.length, medianMs: quantile(sorted, 0.5), p90Ms: quantile(sorted, 0.9) };
};

const binIndex = (ms: number): number => {
  const index = BINS.findIndex((bin) => ms < bin.below);
  return index === -1 ? BINS.length - 1 : index;
};

/** How many completed and declined durations fall in each bin, every bin listed. */
export const durationHistogram = (
  completed: readonly number[],
  declined: readonly number[],
): DurationBin[] => {
  const completedPerBin = BINS.map(() => 0);
  const declinedPerBin = BINS.map(() => 0);
  for (const ms of completed)
    completedPerBin[binIndex(ms)] = (completedPerBin[binIndex(ms)] ?? 0) + 1;
  for (const ms of declined) declinedPerBin[binIndex(ms)] = (declinedPerBin[binIndex(ms)] ?? 0) + 1;
  return BINS.map((bin, index) => ({
    label: bin.label,
    completed: completedPerBin[index] ?? 0,
    declined: declinedPerBin[index] ?? 0,
  }));
};
