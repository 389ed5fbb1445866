/**
 * A batch that the database refused for a reason no check foresaw (a value
 * a column cannot hold, a constraint an operator added). The worker retries
 * such a batch one event at a time to find the event, then fails naming its
 * position and the supported way past it (`signfold pg skip`).
 */
import {
  databaseError,
  errorCode,
  mayBeAboutTheData,
  type PostgresError,
} from '../postgres-error.js';
import { DEFAULT_SCHEMA, type SchemaName } from '../schema-name.js';

/** A failure of the batch of `partition` that read `events` events, `first`..`last`. */
export class BatchWriteError extends Error {
  readonly partition: number;
  readonly first: number;
  readonly last: number;
  /** How many events the batch read: the failure names an event when it is 1. */
  readonly events: number;
  /** What the database threw (also this error's standard `cause`). */
  readonly failure: unknown;
  /**
   * The code of `failure` as it was raised: PostgreSQL's SQLSTATE or Node's
   * socket code, so that every decision (skip advice, retry, giving the
   * partitions back) reads the same code, however the batch failed.
   */
  readonly code: string | undefined;

  /** Wraps `failure`, keeping its message and code. */
  constructor(partition: number, first: number, last: number, events: number, failure: unknown) {
    super(failure instanceof Error ? failure.message : String(failure), { cause: failure });
    this.name = 'BatchWriteError';
    this.partition = partition;
    this.first = first;
    this.last = last;
    this.events = events;
    this.failure = failure;
    this.code = errorCode(failure);
  }
}

/**
 * Whether the failure is that of one event: a batch that read one event and
 * that PostgreSQL refused with a SQLSTATE that may be about its values (see
 * `mayBeAboutTheData`). A lost connection, a timeout, a lock not granted or a
 * server shutting down is never the event's fault, whatever the batch size:
 * advising to skip it would quarantine a valid event for good.
 */
export const isEventFailure = (cause: unknown): cause is BatchWriteError =>
  cause instanceof BatchWriteError && cause.events === 1 && mayBeAboutTheData(cause.failure);

/** Whether retrying the batch one event at a time may find an event the database refuses. */
export const mayBeAboutAnEvent = (cause: unknown): cause is BatchWriteError =>
  cause instanceof BatchWriteError && mayBeAboutTheData(cause.failure);

/**
 * The error of a failure narrowed to one event: one line naming the position,
 * the partition, the database's reason, and the command that skips it.
 */
export const eventFailure = (schema: SchemaName, cause: BatchWriteError): PostgresError => {
  const schemaFlag = schema === DEFAULT_SCHEMA ? '' : ` --schema ${schema}`;
  const doing = `projecting position ${cause.first} (partition ${cause.partition}) of ${schema}.events`;
  const base = databaseError(cause.failure, doing);
  return {
    ...base,
    message: `${base.message}; if it fails again, skip it: signfold pg skip --position ${cause.first}${schemaFlag}`,
  };
};
