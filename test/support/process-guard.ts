/**
 * Vitest global setup, first in the list so that its teardown runs last: no process may outlive
 * the run. Every process the run starts inherits {@link RUN_MARK}; after every other teardown
 * (the shared PostgreSQL servers stop in theirs), a marked process still alive is killed and the
 * run fails, naming it. Each file is held to the same rule in its own teardown (process-fixture.ts),
 * which names the file; this is the net under it.
 *
 * A run killed by a signal runs no teardown at all: for that, the guard starts the run's watchdog
 * (run-watchdog.js), which stops the marked processes once the run is gone.
 */
import { randomUUID } from 'node:crypto';
import { describeProcesses, RUN_MARK, reapMarked } from './marked-processes.js';
import { startWatchdog, type Watchdog } from './run-watchdog.js';

let watchdog: Watchdog | undefined;

/**
 * Registers a temporary directory of the run's (a global setup's) that the watchdog removes if
 * the run dies without its teardown; the teardown that made it still removes it otherwise.
 */
export const removeIfRunDies = (dir: string): void => {
  watchdog?.removeIfRunDies(dir);
};

export default function processGuard(): () => Promise<void> {
  const run = randomUUID();
  // Set before the workers start: they, their children and the servers they start inherit it.
  process.env[RUN_MARK] = run;
  watchdog = startWatchdog(RUN_MARK, run);
  return async () => {
    const left = await reapMarked(RUN_MARK, run, 5000);
    delete process.env[RUN_MARK];
    watchdog?.done();
    watchdog = undefined;
    if (left.length > 0) {
      // An error thrown by a global teardown is only logged (the run would still pass): say it
      // and fail the run by its exit code.
      console.error(
        `\n${left.length} process(es) of this test run outlived it (killed now):\n${describeProcesses(left)}\n`,
      );
      process.exitCode = 1;
    }
  };
}
