/**
 * The fetch module for `signfold reconcile --fetch MODULE` against the e-signature simulator:
 * `async (signRequestId, { signal }) => unknown`, reading the simulator's base URL from
 * `SIGNFOLD_SIMULATOR_URL`. Written once, in test/fixtures/simulator-fetch.mjs, so that a
 * CLI process (plain Node 20, no TypeScript) can load the very function the tests call; pass
 * {@link SIMULATOR_FETCH_MODULE} as MODULE.
 */
import { fileURLToPath } from 'node:url';
import fetchSignRequest from '../fixtures/simulator-fetch.mjs';

/** Path of the module a `signfold` process loads with `--fetch`. */
export const SIMULATOR_FETCH_MODULE = fileURLToPath(
  new URL('../fixtures/simulator-fetch.mjs', import.meta.url),
);

export default fetchSignRequest;
