/**
 * What `signfold serve` needs of its storage, whichever it is (a file log or
 * PostgreSQL): the log to append to, a cheap readiness probe for `/readyz`,
 * and a close that waits for the appends in flight.
 */
import type { EventLog } from '../../engine/event-log.js';

/** Open storage, owned by the running server. */
export interface ServeStorage {
  /**
   * Where the handler appends deliveries. It owns the append deadline
   * (`--append-timeout`), the only one: an append not committed by then is
   * answered with a `timeout` failure (`AppendTimeout`), which serve answers
   * with 503 and counts. PostgreSQL's log enforces it itself
   * (`appendTimeoutMs`), the file log through `withAppendDeadline`.
   */
  readonly log: Pick<EventLog, 'append'>;
  /** Names the storage in the listening line: `file log events.ndjson`. */
  readonly description: string;
  /**
   * `undefined` while appends can succeed, else why not (for `/readyz` and
   * its log line). Never rejects; answers within a couple of seconds. For
   * PostgreSQL it goes through the appends' own queue and connections.
   */
  probe(): Promise<string | undefined>;
  /** Waits for queued appends, then releases the log (and its lock). Never rejects. */
  close(): Promise<void>;
}
