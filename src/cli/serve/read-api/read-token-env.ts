/**
 * `--read-token-env NAME:COMPANY,COMPANY...` of `signfold serve`: which
 * environment variable holds a bearer token of the read API, and the
 * companies that token sees. Parsed like `--secret-env` (a token on the
 * command line would show in `ps`), except that the companies are required:
 * a read token bound to no company would be a token that sees everything,
 * which is not something to get by leaving a part out.
 */
import { usageError } from '../../cli-error.js';

/** One `--read-token-env` value: a variable and the companies its token sees. */
export interface ReadTokenEnv {
  readonly name: string;
  readonly companies: readonly number[];
}

// A company id as the wire writes one: a safe integer in decimal digits (as --secret-env reads it).
const COMPANY = /^-?[0-9]+$/;

/** Parses one `--read-token-env NAME:COMPANY,COMPANY...`; a usage error (exit 2) when malformed. */
export const readTokenEnvEntry = (value: string): ReadTokenEnv => {
  const colon = value.indexOf(':');
  const name = colon === -1 ? value : value.slice(0, colon);
  if (name === '' || name.includes('=')) {
    throw usageError(`--read-token-env must name an environment variable (got '${value}')`);
  }
  if (colon === -1) {
    throw usageError(
      `--read-token-env ${name}: name the companies its token sees (NAME:COMPANY,COMPANY...)`,
    );
  }
  const listed = value.slice(colon + 1).split(',');
  const companies = listed.map(Number);
  if (!listed.every((id) => COMPANY.test(id)) || !companies.every(Number.isSafeInteger)) {
    throw usageError(
      `--read-token-env ${name}: the companies after ':' must be company ids separated by commas (got '${value.slice(colon + 1)}')`,
    );
  }
  return { name, companies: [...new Set(companies.map((id) => id + 0))] };
};

/**
 * The `--read-token-env` values (repeatable), none when the flag is absent
 * (then the read routes are not served at all). A variable named twice is a
 * usage error: which of its company lists was meant cannot be guessed.
 */
export const readTokenEnvsOf = (values: readonly string[]): readonly ReadTokenEnv[] => {
  const entries = values.map(readTokenEnvEntry);
  const seen = new Set<string>();
  for (const { name } of entries) {
    if (seen.has(name)) {
      throw usageError(
        `--read-token-env ${name} is given twice: list all its companies once (NAME:COMPANY,COMPANY...)`,
      );
    }
    seen.add(name);
  }
  return entries;
};
