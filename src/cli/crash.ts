/**
 * The last line of defence of the `signfold` process: anything that escapes
 * `run` (it should not) is still reported as one line on stderr with exit 2,
 * whatever was thrown (an `Error`, a string, `null`, an object whose
 * `message` getter throws...), never as a stack trace.
 */
import { describeThrown, EXIT, stackOf } from './cli-error.js';
import { writeLines } from './cli-io.js';

/** The part of `process` the handler uses; injectable for tests. */
export interface CrashProcess {
  on(event: 'uncaughtException', listener: (error: unknown) => void): unknown;
  readonly stderr: { write(text: string): unknown };
  exit(code: number): never;
}

/**
 * Makes an uncaught exception (or unhandled rejection, which Node raises as
 * one) print `signfold: unexpected error: <one line>` and exit 2. With
 * `debug` (`SIGNFOLD_DEBUG=1`) the stack follows, when there is one.
 */
export const installCrashHandler = (proc: CrashProcess, debug = false): void => {
  proc.on('uncaughtException', (error) => {
    writeLines(proc.stderr, [`signfold: unexpected error: ${describeThrown(error)}`]);
    const stack = debug ? stackOf(error) : undefined;
    if (stack !== undefined) writeLines(proc.stderr, stack.split('\n'));
    proc.exit(EXIT.failure);
  });
};
