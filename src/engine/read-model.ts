/**
 * The read port: what the read API asks of the current state, whichever
 * adapter holds it (a file log followed in memory, or PostgreSQL's
 * projection tables). Every question names the companies it may see: a
 * record of another company is answered exactly as a record that does not
 * exist, by the model itself, so no route can forget to filter.
 */
import type {
  ParticipantView,
  SignRequestStatus,
  SignRequestView,
} from '../core/projections/records.js';
import type { Upcaster } from '../core/upcasters/upcaster-types.js';
import type { AuditEntry } from './audit-trail.js';
import type { ReadableLog } from './projector-types.js';

/** One sign request as `GET /api/sign-requests/:id` answers it. */
export interface SignRequestDocument {
  readonly signRequest: SignRequestView;
  /** In id order. */
  readonly participants: readonly ParticipantView[];
  /**
   * Every event that touched the request or its participants, in log order,
   * with what it did: the first `MAX_AUDIT_ENTRIES` (10,000) of them.
   */
  readonly auditTrail: readonly AuditEntry[];
  /** Set when the request has more events than the trail shows. */
  readonly auditTrailTruncated?: true;
}

/**
 * The most audit entries one answer holds: a request touched by a runaway
 * sender must not make one answer megabytes long (or, on PostgreSQL, one
 * fold of every event it has).
 */
export const MAX_AUDIT_ENTRIES = 10_000;

/** The filters of `GET /api/sign-requests`, checked. */
export interface ListQuery {
  /** A status, or `deleted`; deleted requests are listed only for `deleted`. */
  readonly status: SignRequestStatus | 'deleted' | undefined;
  /** Open (`sent`, not deleted) and sent more than this many ms ago. */
  readonly stuckAfterMs: number | undefined;
  /** One of the token's companies (another one lists nothing). */
  readonly company: number | undefined;
  readonly limit: number;
  /** List the requests with an id greater than this one (the previous page's `next`). */
  readonly after: number | undefined;
}

/** One page of the list, in id order. */
export interface ListPage {
  readonly signRequests: readonly SignRequestView[];
  /** The `cursor` of the next page; `null` on the last one. */
  readonly next: string | null;
}

/** How a report names the storage behind a model, without its path or URL. */
export interface ReadSource {
  /** The words that stand for the log in the page's `signfold inspect` command lines. */
  readonly inspectSource: readonly string[];
  /** The upcasters the model folds with, so the report sees the events it sees. */
  readonly upcasters: readonly Upcaster[];
}

/** The current state, as the read routes see it. */
export interface ReadModel {
  /** The request `id` when it belongs to one of `companies`; `undefined` otherwise (absent or not theirs). */
  signRequest(id: number, companies: ReadonlySet<number>): Promise<SignRequestDocument | undefined>;
  /** A page of `companies`' requests matching `query`; `now` is the clock `stuck-after` counts from. */
  list(query: ListQuery, companies: ReadonlySet<number>, now: Date): Promise<ListPage>;
  /**
   * A log holding at least the records of `companies`, for the report's fold
   * (the report keeps only theirs: the port need not filter, but may).
   * Rendering stays with the report adapter, which an adapter of storage
   * must not import.
   */
  events(companies: ReadonlySet<number>): ReadableLog;
  /** What the report needs to say where its events came from, and read them as the model does. */
  readonly source: ReadSource;
  /** Releases what the model holds (a pool); never rejects. */
  close(): Promise<void>;
}
