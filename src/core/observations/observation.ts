/**
 * An observation: what the service's API said about one sign request, and
 * when. It is a log record of its own kind, stored beside the events (not a
 * 13th event type): the events say what happened, an observation says what
 * the service reports now, so a delivery the channel lost can be made good
 * from the API, durably and replayably.
 *
 * On the wire (in a log) it is a JSON object told apart from every event by
 * its `record` member and the absence of `type`:
 *
 * ```json
 * {"record":"observation","signRequestId":1000,"companyId":1,"fetchedAt":"2026-11-27T12:00:00.000Z","signRequest":{"id":1000,…}}
 * ```
 *
 * `signRequestId` repeats `signRequest.id` so that stores which route and
 * partition by the top-level members (PostgreSQL) need no second rule.
 */
import type { CompanyId } from '../ids.js';
import type { SignRequest } from '../sign-request/sign-request.js';

/** The value of the `record` member that marks an observation. */
export const OBSERVATION_RECORD = 'observation';

/** A decoded observation record. */
export interface Observation {
  /** The API's representation of the sign request (docs/service-interface.md), decoded. */
  readonly signRequest: SignRequest;
  /** When it was fetched (ISO 8601). */
  readonly fetchedAt: string;
  /**
   * The company whose credentials fetched it, when known: a representation
   * of another company's request is refused as a conflict.
   */
  readonly companyId?: CompanyId;
}

/**
 * Whether a raw log value is meant as an observation record (it may still
 * fail to decode): an object with `record: "observation"` and no `type`. An
 * event always has a `type`, so no event is ever read as an observation.
 */
export const isObservationValue = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  (value as { record?: unknown }).record === OBSERVATION_RECORD &&
  !Object.hasOwn(value, 'type');
