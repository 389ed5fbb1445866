import type { CompanyId } from '../ids.js';
import { encodeSignRequest } from '../sign-request/encode-sign-request.js';
import type { SignRequest } from '../sign-request/sign-request.js';
import { OBSERVATION_RECORD } from './observation.js';

/** Options of {@link observationRecord}. */
export interface ObservationRecordOptions {
  /** When the representation was fetched; default now. */
  readonly fetchedAt?: Date;
  /** The company whose credentials fetched it. */
  readonly companyId?: CompanyId;
}

/**
 * The log value of an observation (see `Observation`): append it to any log
 * like an event. The representation is stored in its canonical wire form
 * (`encodeSignRequest`), so what is replayed is what was understood.
 *
 * @example
 * ```ts
 * import { decodeSignRequest, observationRecord } from 'signfold';
 * import { createMemoryEventLog } from 'signfold/file';
 *
 * const log = createMemoryEventLog();
 * const fetched = decodeSignRequest({
 *   id: 1000, name: 'NDA for Ada', status: 'completed', formType: 'Form', savedTime: '2024-01-02 03:04:05',
 * });
 * if (fetched.isOk()) await log.append(observationRecord(fetched.value));
 * ```
 */
export const observationRecord = (
  signRequest: SignRequest,
  options: ObservationRecordOptions = {},
): Record<string, unknown> => ({
  record: OBSERVATION_RECORD,
  signRequestId: signRequest.id,
  ...(options.companyId === undefined ? {} : { companyId: options.companyId }),
  fetchedAt: (options.fetchedAt ?? new Date()).toISOString(),
  signRequest: encodeSignRequest(signRequest),
});
