/** The tests' copy of the hostile corpus is the shared original, byte for byte. */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOSTILE_CORPUS, SHARED_HOSTILE_CORPUS } from '../support/hostile-corpus.js';

describe('the hostile corpus copy', () => {
  it('holds the corpus: the clean lifecycle of 5001 and invalid UTF-8 among its lines', () => {
    const bytes = readFileSync(HOSTILE_CORPUS);
    expect(bytes.includes('"signRequestId":5001')).toBe(true);
    expect(bytes.includes(Buffer.from([0xc3, 0x28]))).toBe(true);
  });

  it.skipIf(!existsSync(SHARED_HOSTILE_CORPUS))('equals ../shared/hostile/hostile.ndjson', () => {
    expect(readFileSync(HOSTILE_CORPUS).equals(readFileSync(SHARED_HOSTILE_CORPUS))).toBe(true);
  });
});
