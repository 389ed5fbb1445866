/**
 * `signfold check LOG`: lints a log for CI. Prints every bad line and
 * conflict as `LOG:LINE: position P: reason` (the `file:line:` prefix editors
 * and CI annotators understand), then a count. Exit 1 if there is any. An
 * unterminated, unparsable last line (torn tail) counts as a problem here,
 * although `replay` merely reports it: in a file being linted it is most
 * likely a write cut short.
 */

import { counted } from '../../core/plural.js';
import { createProjector } from '../../engine/projector.js';
import { TORN_TAIL_REASON } from '../../store/line-classifier.js';
import { EXIT, type ExitCode } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { parseCommand } from '../define-command.js';
import { CHECK_COMMAND } from '../definitions/check.js';
import {
  type BadRecord,
  describeReason,
  describeSplit,
  splitQuarantine,
} from '../quarantine-format.js';
import { replayLogFile } from '../sources/replay-log.js';
import { upcastersOf } from '../upcaster-module.js';

/**
 * Runs `check` with `args` (the words after `check`): exit 0 if the log is
 * clean, 1 if it holds bad lines, invalid events or conflicts, 2 on usage or
 * I/O errors (thrown as CliError).
 */
export const checkCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const { values, positionals } = parseCommand(CHECK_COMMAND, args);
  const [log = ''] = positionals;
  // Skip policy so every problem is found in one pass; no audit trail is needed to lint.
  const projector = createProjector({
    audit: false,
    policy: 'skip',
    strict: values.strict,
    upcasters: await upcastersOf(values.upcasters, 'check'),
  });
  const run = await replayLogFile(projector, log, io);
  const problems: BadRecord[] = [...projector.quarantine()];
  // The projector leaves an unterminated, unparsable last line alone (a writer may still be
  // appending it), but in a file being linted it is most likely a write cut short: report it.
  const tail = projector.incompleteTail();
  if (tail !== undefined) {
    problems.push({ ...tail, reason: { kind: 'bad-line', message: TORN_TAIL_REASON } });
  }
  writeLines(
    io.stdout,
    problems.map(
      (entry) =>
        `${log}:${entry.line ?? '?'}: position ${entry.position}: ${describeReason(entry)}`,
    ),
  );
  const records = run.processed + (tail === undefined ? 0 : 1);
  if (problems.length === 0) {
    writeLines(io.stdout, [`${log}: ok, ${counted(records, 'record')}, no problems`]);
    return EXIT.ok;
  }
  const { invalid, conflicts } = splitQuarantine(problems);
  writeLines(io.stdout, [
    `${log}: ${counted(problems.length, 'problem')} in ${counted(records, 'record')} ` +
      `(${describeSplit({ invalid, conflicts })})`,
  ]);
  return EXIT.findings;
};
