/**
 * What a running `signfold serve` writes to stderr: one JSON object per line,
 * one per request and one per lifecycle event (a warning, the shutdown), so
 * a log collector can parse every line. Every value that comes from a client
 * (method, path, delivery id, reasons quoting them) goes through
 * {@link writeJson}, which writes C0/C1 controls, U+2028/U+2029 and bidi
 * overrides as `\uXXXX`: nothing a client sends reaches the terminal raw, and
 * the line still parses to the same values.
 */
import { visibleText } from '../../core/visible-text.js';
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
  /** Queues the request's line; it is written with the others of the same turn of the event loop. */
  request(entry: RequestEntry): void;
  /** A lifecycle line: `event` names it (`warning`, `stopping`, `stopped`); written at once, after the queued ones. */
  event(event: string, fields: Readonly<Record<string, unknown>>): void;
  /** Writes the queued request lines now (before an exit that would not wait for the next turn). */
  flush(): void;
}

/**
 * The request line's members, in the order the log has always had, built
 * without spreading `entry`: one object per request, not three, since this
 * runs for every delivery and its garbage is what the young generation collects.
 */
const requestLine = (time: string, entry: RequestEntry): string => {
  const line: Record<string, unknown> = {
    time,
    event: 'request',
    method: entry.method,
    path: entry.path,
    status: entry.status,
    deliveryId: entry.deliveryId,
    durationMs: Math.round(entry.durationMs * 1000) / 1000,
    outcome: entry.outcome,
  };
  if (entry.reason !== undefined) line.reason = entry.reason;
  if (entry.position !== undefined) line.position = entry.position;
  return visibleText(JSON.stringify(line));
};

/**
 * A {@link ServeLog} writing to `stderr`, timed by `now`. Request lines are
 * gathered and written once per turn of the event loop: under load that is
 * one write of many lines instead of a write (a system call on a file or a
 * pipe) per request, and the answers are not held up by it, since the lines
 * are written after the turn that answered them.
 */
export const serveLog = (stderr: TextOutput, now: () => Date = () => new Date()): ServeLog => {
  let queued = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (queued === '') return;
    const text = queued;
    queued = '';
    stderr.write(text);
  };
  return {
    request: (entry) => {
      queued += `${requestLine(now().toISOString(), entry)}\n`;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    event: (event, fields) => {
      flush();
      writeJson(stderr, { time: now().toISOString(), event, ...fields });
    },
    flush,
  };
};
