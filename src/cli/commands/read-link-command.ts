/**
 * `signfold read-link --read-token-env NAME[:COMPANY,...] --url BASE
 * [--expires DURATION]`: prints a report link for a person to open in a
 * browser (createReadLink of signfold/http). The token is read from the
 * environment as `serve` reads it, so the same flag value works for both;
 * the link is made here, offline, and `serve` (or createReadHandler) checks
 * it with the same token: nothing is stored anywhere.
 */

import { createReadLink } from '../../http/read-link.js';
import { MIN_TOKEN_LENGTH } from '../../http/read-tokens.js';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { parseCommand } from '../define-command.js';
import { READ_LINK_COMMAND } from '../definitions/read-link.js';
import { readTokenEnvEntry } from '../serve/read-api/read-token-env.js';

/** `NAME` (all the token's companies) or `NAME:COMPANY,...` (some of them), as serve reads it. */
const tokenEnvOf = (value: string): { name: string; companies: readonly number[] | undefined } => {
  if (value.includes(':')) return readTokenEnvEntry(value);
  if (value === '' || value.includes('=')) {
    throw usageError(`--read-token-env must name an environment variable (got '${value}')`);
  }
  return { name: value, companies: undefined };
};

const required = (value: string | undefined, flag: string, what: string): string => {
  if (value === undefined) throw usageError(`${flag} is required: ${what}`);
  return value;
};

/**
 * Runs `read-link` with `args` and `env`: exit 0 with the link on stdout
 * (and when it expires on stderr), 2 on a usage error or a missing token.
 */
export const readLinkCommand = async (
  args: readonly string[],
  io: CliIO,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<ExitCode> => {
  const { values } = parseCommand(READ_LINK_COMMAND, args);
  const { name, companies } = tokenEnvOf(
    required(values.readTokenEnv, '--read-token-env', 'the variable holding the read token'),
  );
  const url = required(
    values.url,
    '--url',
    'where serve answers, e.g. https://reports.example.com',
  );
  const life = values.expires;
  const token = env[name] ?? '';
  if (token === '') throw new CliError(`--read-token-env ${name}: the variable is unset or empty`);
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw usageError(
      `--read-token-env ${name}: a read token must be at least 16 characters without spaces (e.g. openssl rand -hex 24)`,
    );
  }
  let parsedUrl: URL | undefined;
  try {
    parsedUrl = new URL(url);
  } catch {
    parsedUrl = undefined;
  }
  if (parsedUrl === undefined || !['http:', 'https:'].includes(parsedUrl.protocol)) {
    throw usageError(`--url must be an http or https URL (got '${url}')`);
  }
  let link: string;
  try {
    link = createReadLink({
      token,
      url: parsedUrl.href,
      ...(companies === undefined ? {} : { companies }),
      ...(life === undefined ? {} : { expiresInMs: life }),
    });
  } catch (cause) {
    throw usageError(cause instanceof Error ? cause.message : String(cause));
  }
  const until = new Date(Number(new URL(link).searchParams.get('link')?.split('.')[0]) * 1000);
  io.stdout.write(`${link}\n`);
  const whose =
    companies === undefined ? `the companies of ${name}` : `companies ${companies.join(', ')}`;
  const plain =
    parsedUrl.protocol === 'https:' ? '' : ' (over plain http: use https beyond this host)';
  writeLines(io.stderr, [
    `signfold: the link opens the report of ${whose} until ${until.toISOString()}${plain}; ` +
      `change the token in ${name} to revoke it`,
  ]);
  return EXIT.ok;
};
