/**
 * stdout whose reader may go away: `signfold check LOG | head` closes the
 * pipe after ten lines. That is the reader's choice, not a failure of the
 * command, and it must not change the command's answer either: under
 * `set -o pipefail` a CI step relies on `check` exiting 1 when the log has
 * problems, whoever stopped reading. So once the reader is gone, output is
 * dropped and the command runs on to its own exit code.
 */
import { EXIT } from './cli-error.js';
import type { TextOutput } from './cli-io.js';

/** The part of `process.stdout` this needs. */
export interface WritableStdout {
  write(text: string): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  readonly isTTY?: boolean;
}

/**
 * Wraps `stream` (the process's stdout): an `EPIPE` (the reader closed the
 * pipe) makes every later write a no-op, and errors that follow from it (the
 * stream is destroyed by then) are ignored; any other write error (a full
 * disk, an I/O error) means the output is lost, so `exit` is called with 2.
 */
export const closableStdout = (
  stream: WritableStdout,
  exit: (code: number) => void,
): TextOutput => {
  let readerGone = false;
  stream.on('error', (error) => {
    if (readerGone || error.code === 'EPIPE') {
      readerGone = true;
      return;
    }
    exit(EXIT.failure);
  });
  return {
    write: (text) => (readerGone ? false : stream.write(text)),
    get isTTY() {
      return stream.isTTY === true;
    },
  };
};
