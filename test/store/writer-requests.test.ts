/**
 * The requests `serve` takes from beside its log (writer-requests.ts) are input like any other:
 * whatever a file holds (the hostile corpus, its lines cut, a valid request with bytes flipped),
 * reading it never throws, and what is read is either an error or a request whose observations
 * are valid observation records, rebuilt and keyed by their content.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSignRequest } from '../../src/core/sign-request/decode-sign-request.js';
import { parseWriterRequest } from '../../src/store/writer-requests.js';
import {
  hostileLines,
  SAMPLE_OBSERVATION,
  WRITER_REQUEST_TAG,
} from '../support/writer-request-fixtures.js';

const TAG = WRITER_REQUEST_TAG;
const OBSERVATION = SAMPLE_OBSERVATION;
const VALID = JSON.stringify({ signfold: TAG, action: 'observations', records: [OBSERVATION] });
const CORPUS = hostileLines();

/** What a parsed request may be: an error, or only valid observations (or hello, or a forget). */
const checkParsed = (text: string): void => {
  const parsed = parseWriterRequest(text);
  if ('error' in parsed) {
    expect(typeof parsed.error).toBe('string');
    return;
  }
  if (parsed.action !== 'observations') return;
  for (const record of parsed.records) {
    const event = record.event as { record: string; signRequest: unknown; signRequestId: number };
    expect(event.record).toBe('observation');
    const decoded = decodeSignRequest(event.signRequest);
    expect(decoded.isOk()).toBe(true);
    expect(decoded._unsafeUnwrap().id).toBe(event.signRequestId);
    expect(record.deliveryId).toMatch(/^signfold-observation-[0-9a-f]{32}$/);
  }
};

describe('parseWriterRequest', () => {
  it('reads a valid request, and keys the same observation alike whenever it was fetched', () => {
    const first = parseWriterRequest(VALID);
    const later = parseWriterRequest(
      JSON.stringify({
        signfold: TAG,
        action: 'observations',
        records: [{ ...OBSERVATION, fetchedAt: '2026-11-29T10:00:00.000Z' }],
      }),
    );
    if ('error' in first || first.action !== 'observations') throw new Error('not read');
    if ('error' in later || later.action !== 'observations') throw new Error('not read');
    expect(first.records[0]?.deliveryId).toBe(later.records[0]?.deliveryId);
  });

  it('every line of the hostile corpus, cut or wrapped as a request, is an error', () => {
    for (const line of CORPUS) {
      for (const text of [
        line,
        line.slice(0, Math.floor(line.length / 2)),
        JSON.stringify({ signfold: TAG, action: 'observations', records: [line] }),
        `{"signfold":"${TAG}","action":"observations","records":[${line}]}`,
        `{"signfold":"${TAG}","action":"forget","forget":${line}}`,
      ]) {
        const parsed = parseWriterRequest(text);
        expect('error' in parsed, text.slice(0, 200)).toBe(true);
      }
    }
  });

  it('a valid request with bytes flipped, cut or spliced never throws, and is an error or valid', () => {
    const bytes = Buffer.from(VALID);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 })), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.nat(bytes.length),
        fc.constantFrom(...CORPUS),
        (flips, cut, spliced) => {
          const flipped = Buffer.from(bytes);
          for (const [at, mask] of flips) flipped[at] = (flipped[at] ?? 0) ^ mask;
          checkParsed(flipped.toString('utf8'));
          checkParsed(VALID.slice(0, cut));
          checkParsed(VALID.replace('"R"', JSON.stringify(spliced)));
          checkParsed(VALID.replace('1000,"companyId"', `${spliced},"companyId"`));
        },
      ),
      { numRuns: 500 },
    );
  });
});
