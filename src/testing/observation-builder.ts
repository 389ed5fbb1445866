/**
 * The observation-record builder of `signfold/testing`: what `reconcile`
 * would append when the service's API answers with a representation, for
 * `given(...).whenObserved(...)` and for logs built in tests.
 */
import { AssertionError } from 'node:assert';
import { EVENT_DEFAULTS } from '../core/builders/event-builders.js';
import { formatDecodeError } from '../core/decode-error.js';
import { companyId as toCompanyId } from '../core/ids.js';
import { observationRecord } from '../core/observations/observation-record.js';
import { decodeSignRequest } from '../core/sign-request/decode-sign-request.js';

/** What {@link observation} may change. */
export interface ObservationOverrides {
  /**
   * Members of the representation (wire form, as the API sends it) that
   * replace the defaults: request 1000 `completed`, its participant 5
   * `Signed` (the ids of `EVENT_DEFAULTS`).
   */
  readonly signRequest?: Readonly<Record<string, unknown>>;
  /** Default `2026-01-01T00:00:00.000Z`. */
  readonly fetchedAt?: string;
  /** The company whose credentials fetched it; default none. */
  readonly companyId?: number;
}

/**
 * An observation record: by default the API's view of the default request
 * once completed (participant 5 signed). Throws an `AssertionError` naming
 * the member when an override makes the representation invalid.
 *
 * @example
 * ```ts
 * import { events, given, observation } from 'signfold/testing';
 *
 * given(events.signRequestSent(), events.participantSent())
 *   .whenObserved(observation())
 *   .thenSignRequest(1000, { status: 'completed' })
 *   .thenParticipant(1000, 5, { status: 'signed' });
 * ```
 */
export const observation = (overrides: ObservationOverrides = {}): Record<string, unknown> => {
  const wire = {
    id: EVENT_DEFAULTS.signRequestId,
    name: EVENT_DEFAULTS.signRequestName,
    status: 'Completed',
    formType: 'Form',
    savedTime: '2026-01-01 00:00:00',
    participants: [
      {
        id: EVENT_DEFAULTS.participantId,
        name: EVENT_DEFAULTS.participantName,
        role: { id: EVENT_DEFAULTS.roleId, name: EVENT_DEFAULTS.roleName },
        status: 'Signed',
      },
    ],
    ...overrides.signRequest,
  };
  const decoded = decodeSignRequest(wire);
  if (decoded.isErr()) {
    const problems = decoded.error.map((e) => formatDecodeError(e, '(root)')).join('; ');
    throw new AssertionError({
      message: `observation: the representation is invalid: ${problems}`,
      actual: wire,
      operator: 'observation',
    });
  }
  return observationRecord(decoded.value, {
    fetchedAt: new Date(overrides.fetchedAt ?? '2026-01-01T00:00:00.000Z'),
    ...(overrides.companyId === undefined ? {} : { companyId: toCompanyId(overrides.companyId) }),
  });
};
