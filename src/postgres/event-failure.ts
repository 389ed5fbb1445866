/**
 * A batch that the database refused for a reason no check foresaw (a value
 * a column cannot hold, a constraint an operator added). The worker retries
 * such a batch one event at a time to find the event, then fails naming its
 * position and the supported way past it (`signfold pg skip`).
 */
import { databaseError, type PostgresError, sqlState } from './postgres-error.js';
import { DEFAULT_SCHEMA, type SchemaName } from './schema-name.js';

/** A failure of the batch of `partition` that read `events` events, `first`..`last`. */
export class BatchWriteError extends Error {
  readonly partition: number;
  readonly first: number;
  readonly last: number;
  /** How many events the batch read: the failure names an event when it is 1. */
  readonly events: number;
  /** What the database threw. */
  readonly failure: unknown;

  /** Wraps `failure`, keeping its message. */
  constructor(partition: number, first: number, last: number, events: number, failure: unknown) {
    super(failure instanceof Error ? failure.message : String(failure));
    this.name = 'BatchWriteError';
    this.partition = partition;
    this.first = first;
    this.last = last;
    this.events = events;
    this.failure = failure;
  }
}

/**
 * SQLSTATE classes that say nothing about the events: the connection (08),
 * the transaction's state (25, e.g. a worker stalled past its idle timeout),
 * a rollback to retry (40), resources (53), an operator or a shutdown (57),
 * the system (58). Any other refusal may come from one event's values.
 */
const NOT_ABOUT_THE_EVENTS = new Set(['08', '25', '40', '53', '57', '58']);

/** Whether the failure is that of one event (a batch that read one). */
export const isEventFailure = (cause: unknown): cause is BatchWriteError =>
  cause instanceof BatchWriteError && cause.events === 1;

/** Whether retrying the batch one event at a time may find an event the database refuses. */
export const mayBeAboutAnEvent = (cause: unknown): cause is BatchWriteError => {
  if (!(cause instanceof BatchWriteError)) return false;
  const state = sqlState(cause.failure);
  return state !== undefined && !NOT_ABOUT_THE_EVENTS.has(state.slice(0, 2));
};

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
