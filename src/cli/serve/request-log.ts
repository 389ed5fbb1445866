/**
 * What a running `signfold serve` writes to stderr: one JSON object per line,
 * one per request and one per lifecycle event (a warning, the shutdown), so
 * a log collector can parse every line. Every value that comes from a client
 * (method, path, delivery id, reasons quoting them) goes through
 * {@link writeJson}, which writes C0/C1 controls, U+2028/U+2029 and bidi
 * overrides as `\uXXXX`: nothing a client sends reaches the terminal raw, and
 * the line still parses to the same values.
 */
import { type TextOutput, writeJson } from '../cli-io.js';

/** One request, as logged when its answer was written. */
export interface RequestEntry {
  readonly method: string;
  /** The path, without the query string (which may carry tokens). */
  readonly path: string;
  /** `null` when the client went away before an answer could be written. */
  readonly status: number | null;
  /** The delivery header's value, `null` when absent (or not a webhook request). */
  readonly deliveryId: string | null;
  readonly durationMs: number;
  /** stored, duplicate, rejected, unavailable; `null` for the other endpoints. */
  readonly outcome: string | null;
  /** Why a delivery was rejected or not stored, or why `/readyz` is not ready. */
  readonly reason?: string;
  /** Position in the log of a stored (or duplicate) delivery. */
  readonly position?: number;
}

/** The stderr log of one server. */
export interface ServeLog {
  request(entry: RequestEntry): void;
  /** A lifecycle line: `event` names it (`warning`, `stopping`, `stopped`). */
  event(event: string, fields: Readonly<Record<string, unknown>>): void;
}

/** A {@link ServeLog} writing to `stderr`, timed by `now`. */
export const serveLog = (stderr: TextOutput, now: () => Date = () => new Date()): ServeLog => ({
  request: (entry) => {
    const durationMs = Math.round(entry.durationMs * 1000) / 1000;
    writeJson(stderr, { time: now().toISOString(), event: 'request', ...entry, durationMs });
  },
  event: (event, fields) => writeJson(stderr, { time: now().toISOString(), event, ...fields }),
});
