/**
 * The parts of the report model an operations lead reads first: the figures
 * of a group of requests, the summary strip, and the people (senders and
 * owners).
 */

/**
 * What became of some sign requests of the period (not deleted, at `sent` or
 * beyond; see `request-figures.ts`), statuses as of the end of the period.
 */
export interface RequestFigures {
  readonly sent: number;
  readonly completed: number;
  readonly declined: number;
  /** Still `sent`: neither completed nor declined. */
  readonly open: number;
  /** Open for longer than `--stuck-after`. */
  readonly stuck: number;
  /** `completed / sent`: open requests count against it. */
  readonly completedOfSent: number | undefined;
  /** `completed / (completed + declined)`: open requests left out. */
  readonly completedOfFinished: number | undefined;
  readonly declinedOfFinished: number | undefined;
  /** How long the oldest open request has been open (needs a sent time). */
  readonly oldestOpenMs: number | undefined;
  /** Completed requests with both times: what the median and p90 are of (open ones never are). */
  readonly timed: number;
  readonly medianCompleteMs: number | undefined;
  readonly p90CompleteMs: number | undefined;
}

/** One sender or owner: a person of one company, by id, with the name its latest request gave. */
export interface PersonRow {
  readonly userId: number;
  readonly name: string;
  readonly companyId: number | null;
  readonly figures: RequestFigures;
}

/** Requests per sender and per owner (events name both: `senderId`, `ownerId`). */
export interface PeopleModel {
  /** Most requests sent first, then by company and id. */
  readonly senders: readonly PersonRow[];
  readonly owners: readonly PersonRow[];
}

/** Figures of all requests (`companyId` `null`) or of one company's. */
export interface ScopedFigures {
  readonly companyId: number | null;
  readonly figures: RequestFigures;
  /** Open requests by age, in the order of {@link AGE_BUCKETS}. */
  readonly openByAge: readonly number[];
  /** Open requests whose participants have all signed (a missed completion). */
  readonly allSigned: number;
  /** Their ids, ascending: the first `LISTED_ROWS` (1,000) of them. */
  readonly allSignedIds: readonly number[];
}

/** Age buckets of open requests: upper bounds (exclusive, ms) and labels. */
export const AGE_BUCKETS: readonly { readonly below: number; readonly label: string }[] = [
  { below: 86_400_000, label: '< 1 d' },
  { below: 3 * 86_400_000, label: '1–3 d' },
  { below: 7 * 86_400_000, label: '3–7 d' },
  { below: 30 * 86_400_000, label: '7–30 d' },
  { below: Number.POSITIVE_INFINITY, label: '≥ 30 d' },
];

/**
 * Why "now" is the time it is: the time the report was made (or `--now`);
 * the end of the period (`--to`) when that is earlier; or the latest
 * `receivedAt` when the log holds a time after both (a clock behind the
 * sender's).
 */
export type AsOfBasis = 'now' | 'period-end' | 'latest';

/** The strip at the top of the page. */
export interface SummaryModel {
  /** First and last `receivedAt` of the decoded events in the period (ISO), if any. */
  readonly first: string | undefined;
  readonly last: string | undefined;
  /** The bounds asked for (`--from`, `--to`), ISO. */
  readonly from: string | undefined;
  readonly to: string | undefined;
  /** "Now" (ISO): what ages and stuck requests are measured against; see {@link asOfBasis}. */
  readonly asOf: string;
  readonly asOfBasis: AsOfBasis;
  /** Whether "now" was given on the command line (`--now`) rather than read from the clock. */
  readonly asOfGiven: boolean;
  /** The latest `receivedAt` read (ISO): when the last delivery arrived; `undefined` when none has one. */
  readonly lastDelivery: string | undefined;
  /** How long before "now" the last delivery arrived (ms), when one has a `receivedAt`. */
  readonly silentMs: number | undefined;
  /** Longer than this without a delivery, the page warns (a banner at the top). */
  readonly staleAfterMs: number;
  readonly stuckAfterMs: number;
  /** All requests first, then one entry per company (by id) when there are several. */
  readonly scopes: readonly ScopedFigures[];
  /** Bad lines and invalid events of the period; conflicts apart. */
  readonly badLines: number;
  readonly invalidEvents: number;
  readonly conflicts: number;
  /** Requests repaired from the service's API (observation records) in the period. */
  readonly repairs: number;
}

/**
 * Up to this many companies, the page draws each company's charts for the
 * company filter; beyond, a chart stays the whole log's (its totals and
 * tables still follow the filter), so the page stays small however many
 * companies a log holds.
 */
export const MAX_CHARTED_COMPANIES = 12;
