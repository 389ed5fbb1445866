/**
 * `signfold validate FILE`: validates a sign-request representation (spec §2)
 * with `decodeSignRequest` and prints every problem as `path: message`.
 */
import { readFile } from 'node:fs/promises';
import type { DecodeError } from '../decode-error.js';
import { counted } from '../plural.js';
import { decodeSignRequest } from '../sign-request/decode-sign-request.js';
import { expectPositionals, parseCommandArgs } from './args.js';
import { CliError, EXIT, type ExitCode } from './cli-error.js';
import { type CliIO, writeLines } from './cli-io.js';
import { ensureReadableFile } from './log-source.js';

/** How the whole document is named, since its path is the empty string. */
const ROOT = '(root)';

const describeProblem = (error: DecodeError): string =>
  `${error.path === '' ? ROOT : error.path}: ${error.message}`;

/** The decoding problems of `text`, or a one-line `ok` summary. */
const validateText = (text: string): { ok: string } | { problems: string[] } => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    // The content is what is being judged: not JSON is "invalid" (exit 1), not "unreadable".
    return { problems: [`${ROOT}: invalid JSON: ${(cause as Error).message}`] };
  }
  const decoded = decodeSignRequest(value);
  if (decoded.isErr()) return { problems: decoded.error.map(describeProblem) };
  const r = decoded.value;
  return {
    ok:
      `sign request ${r.id} ${JSON.stringify(r.name)} (${r.status}, ${r.formType}, ` +
      `${counted(r.participants?.length ?? 0, 'participant')}, ${counted(r.fields?.length ?? 0, 'field')})`,
  };
};

/**
 * Runs `validate` with `args` (the words after `validate`): exit 0 if the
 * file holds a valid representation, 1 if it does not (including not JSON),
 * 2 on usage errors or a missing or unreadable file.
 */
export const validateCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const parsed = parseCommandArgs(args, {});
  const [file = ''] = expectPositionals(parsed.positionals, ['FILE']);
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
  return EXIT.findings;
};
