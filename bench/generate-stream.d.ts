/**
 * Type declarations for `bench/generate-stream.js` (plain ESM JavaScript), so that
 * TypeScript (strict) code such as the tests can import it.
 */

/** A wire event: `type` plus the members of spec §6.2 (`partcipantName` spelling). */
export type WireEvent = { readonly type: string } & {
  readonly [member: string]: string | number;
};

/** Counters filled in by {@link generateEvents} when passed as `stats`. */
export interface GenerateStats {
  /** Events yielded so far (generated events plus duplicates). */
  events: number;
  /** Redeliveries of a recent event. */
  duplicates: number;
  /** Neighbouring pairs delivered swapped. */
  reorders: number;
  /** Sign requests started so far. */
  signRequests: number;
  /** Events yielded per type (complete once the generator is exhausted). */
  byType: Record<string, number>;
}

export interface GenerateOptions {
  /** Any safe integer; the same options always yield the same events. */
  seed: number;
  /** Number of sign requests to run. */
  signRequests: number;
  /** Companies 1..companies (default 5). */
  companies?: number;
  /** Templates per company (default 4). */
  templatesPerCompany?: number;
  /** Probability, after each generated event, of redelivering a recent one (default 0.02). */
  duplicateRate?: number;
  /** Probability of swapping an event with its successor where harmless (default 0.01). */
  reorderRate?: number;
  /** Sign requests in flight at once, at most (default 256). */
  maxInFlight?: number;
  /**
   * Sign requests open at once: replaces the `maxInFlight` window (which is also
   * capped at an eighth of `signRequests`), and requests start whenever the window is
   * not full, so it fills first. For interleaved, realistic streams.
   */
  concurrent?: number;
  /** Filled in with counters as events are generated. */
  stats?: GenerateStats;
}

export interface CatalogUser {
  id: number;
  name: string;
}

export interface CatalogRole {
  id: number;
  name: string;
  sequence: number;
  /** Signed by company staff rather than an external person. */
  internal: boolean;
}

export interface CatalogTemplate {
  id: number;
  companyId: number;
  name: string;
  formType: 'Form' | 'Document';
  owner: CatalogUser;
  roles: CatalogRole[];
  /** Index of the role whose participant names the sign requests. */
  title: number;
}

export interface CatalogCompany {
  id: number;
  users: CatalogUser[];
  templates: CatalogTemplate[];
}

/** A delivery envelope as written to event logs. */
export interface Envelope<E = unknown> {
  position: number;
  receivedAt: string;
  deliveryId: string;
  event: E;
}

/** mulberry32: returns a function yielding floats in [0, 1). */
export function mulberry32(seed: number): () => number;

/** The companies, users, templates and roles {@link generateEvents} uses for these options. */
export function templateCatalog(options: {
  seed: number;
  companies?: number;
  templatesPerCompany?: number;
}): CatalogCompany[];

/** Deterministic, realistic, conflict-free stream of wire events. */
export function generateEvents(options: GenerateOptions): Generator<WireEvent, void, undefined>;

/** Wraps events in delivery envelopes with deterministic times and ids. */
export function envelopes<E>(
  events: Iterable<E>,
  options?: { seed?: number; startPosition?: number; meanGapMs?: number },
): Generator<Envelope<E>, void, undefined>;

/**
 * Writes NDJSON with large buffered writes: strings verbatim, other items
 * JSON-serialised (wrapped in envelopes when `envelope` is true).
 */
export function writeNdjson(
  path: string,
  items: Iterable<unknown>,
  options?: { envelope?: boolean; startPosition?: number; seed?: number; meanGapMs?: number },
): { lines: number; bytes: number };
