/**
 * `signfold validate FILE`: validates a sign-request representation (docs/service-interface.md)
 * with `decodeSignRequest` and prints every problem as `path: message`.
 */
import { readFile } from 'node:fs/promises';
import { decodeError, formatDecodeError } from '../../core/decode-error.js';
import { isEventType } from '../../core/events/event-members.js';
import { counted } from '../../core/plural.js';
import { decodeSignRequest } from '../../core/sign-request/decode-sign-request.js';
import { parseLogLine } from '../../store/parse-log-line.js';
import { CliError, EXIT, type ExitCode } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { parseCommand } from '../define-command.js';
import { VALIDATE_COMMAND } from '../definitions/validate.js';
import { ensureReadableFile } from '../sources/read-only-log.js';

/** How the whole document is named, so that every problem line starts with a path. */
const ROOT = '(root)';

/** The decoding problems of `text`, or a one-line `ok` summary. */
const validateText = (text: string): { ok: string } | { problems: string[] } => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    // The content is what is being judged: not JSON is "invalid" (exit 1), not "unreadable".
    const problem = decodeError('invalid-json', '', `invalid JSON: ${(cause as Error).message}`);
    return { problems: [formatDecodeError(problem, ROOT)] };
  }
  const decoded = decodeSignRequest(value);
  if (decoded.isErr()) {
    return { problems: decoded.error.map((error) => formatDecodeError(error, ROOT)) };
  }
  const r = decoded.value;
  return {
    ok:
      `sign request ${r.id} ${JSON.stringify(r.name)} (${r.status}, ${r.formType}, ` +
      `${counted(r.participants?.length ?? 0, 'participant')}, ${counted(r.fields?.length ?? 0, 'field')})`,
  };
};

/**
 * Whether `text` starts like an event log rather than a representation: its
 * first line is a log entry (envelope or bare) whose event has an event type.
 * The file reader's own rules decide what an entry is.
 */
const looksLikeEventLog = (text: string): boolean => {
  const [first = ''] = text.trimStart().split('\n', 1);
  const record = parseLogLine(first);
  if (record?.kind !== 'entry') return false;
  const type: unknown = (record.event as { readonly type?: unknown } | null)?.type;
  return typeof type === 'string' && isEventType(type);
};

/**
 * Runs `validate` with `args` (the words after `validate`): exit 0 if the
 * file holds a valid representation, 1 if it does not (including not JSON),
 * 2 on usage errors or a missing or unreadable file.
 */
export const validateCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const [file = ''] = parseCommand(VALIDATE_COMMAND, args).positionals;
  await ensureReadableFile(file);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new CliError(`${file}: ${(cause as Error).message}`);
  }
  const result = validateText(text);
  if ('ok' in result) {
    writeLines(io.stdout, [`${file}: ok: ${result.ok}`]);
    return EXIT.ok;
  }
  writeLines(io.stdout, [
    ...result.problems,
    `${file}: invalid, ${counted(result.problems.length, 'problem')}`,
  ]);
  if (looksLikeEventLog(text)) {
    // Not part of the result (stderr): a pointer for whoever ran the wrong command.
    writeLines(io.stderr, [
      `signfold: ${file} looks like an event log (NDJSON), not a sign-request representation: ` +
        `lint a log with 'signfold check ${file}'`,
    ]);
  }
  return EXIT.findings;
};
