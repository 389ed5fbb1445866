/**
 * The shared hostile corpus (`../shared/hostile/`, see its README), as the tests read it: a
 * byte-for-byte copy in test/fixtures/hostile, so the suite runs on a clone without `../shared`
 * (CI's); test/reliability/hostile-corpus-copy.test.ts keeps the copy equal to the original
 * wherever the original is there.
 */
import { join, resolve } from 'node:path';

/** The repository root. */
const ROOT = resolve(import.meta.dirname, '../..');

/** The copy the tests read. */
export const HOSTILE_CORPUS = join(ROOT, 'test/fixtures/hostile/hostile.ndjson');

/** Where the shared original lives, beside the repository. */
export const SHARED_HOSTILE_CORPUS = join(ROOT, '../shared/hostile/hostile.ndjson');
