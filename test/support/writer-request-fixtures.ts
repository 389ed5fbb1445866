/**
 * The wire form of the requests `serve` takes from beside its log (src/store/writer-requests.ts),
 * written out here rather than imported, so that a change to the format fails these tests: the
 * tag, one valid observation record, and the hostile corpus's lines for the property tests.
 */
import { readFileSync } from 'node:fs';
import { HOSTILE_CORPUS } from './hostile-corpus.js';

/** The tag every writer request carries. */
export const WRITER_REQUEST_TAG = 'signfold-writer-request';

/** A valid observation record: sign request 1000 of company 1, completed. */
export const SAMPLE_OBSERVATION = {
  record: 'observation',
  signRequestId: 1000,
  companyId: 1,
  fetchedAt: '2026-11-28T10:00:00.000Z',
  signRequest: {
    id: 1000,
    name: 'R',
    status: 'Completed',
    formType: 'Form',
    savedTime: '2026-11-20 10:00:00',
  },
} as const;

/** The hostile corpus's non-empty lines (the copy equals ../shared's; a test checks it). */
export const hostileLines = (): string[] =>
  readFileSync(HOSTILE_CORPUS, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
