/**
 * The bearer tokens of the read API, read from the environment and matched
 * in constant time: the time an answer takes says nothing of how much of a
 * guess was right, nor of which token it came close to.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { CliError, usageError } from '../../cli-error.js';
import type { ReadTokenEnv } from './read-token-env.js';

/**
 * The shortest token accepted: 16 characters of a random base64 or hex
 * string are 64 bits or more, beyond guessing through a rate-limited API.
 */
export const MIN_TOKEN_LENGTH = 16;

/** A token a request presented and was matched to. */
export interface ReadClient {
  /** The variable the token came from: names the client in rate limits, never the token itself. */
  readonly name: string;
  /** The companies whose records it sees. */
  readonly companies: ReadonlySet<number>;
}

/** Matches the `Authorization` header of a request to a configured token. */
export interface ReadTokens {
  /** The client of `authorization` (`Bearer TOKEN`), or `undefined` for none or an unknown token. */
  match(authorization: string | undefined): ReadClient | undefined;
}

// Digests have one length whatever the token's, which timingSafeEqual needs, and comparing every
// configured digest (no early exit) keeps the number of tokens configured out of the timing too.
const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The tokens of `entries`, read from `env`. A variable that is unset or
 * empty, a token shorter than {@link MIN_TOKEN_LENGTH}, or two variables
 * holding the same token (whose companies would then be a guess) is an
 * error naming the variable, never the value.
 */
export const readTokens = (
  entries: readonly ReadTokenEnv[],
  env: Readonly<Record<string, string | undefined>>,
): ReadTokens => {
  const known: { readonly digest: Buffer; readonly client: ReadClient }[] = [];
  const owners = new Map<string, string>();
  for (const { name, companies } of entries) {
    const token = env[name] ?? '';
    if (token === '') {
      throw new CliError(`--read-token-env ${name}: the variable is unset or empty`);
    }
    if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
      throw usageError(
        `--read-token-env ${name}: a read token must be at least ${MIN_TOKEN_LENGTH} characters without spaces (e.g. openssl rand -hex 24)`,
      );
    }
    const other = owners.get(token);
    if (other !== undefined) {
      throw usageError(
        `--read-token-env ${name} holds the same token as ${other}: give each its own`,
      );
    }
    owners.set(token, name);
    known.push({ digest: digest(token), client: { name, companies: new Set(companies) } });
  }
  return {
    match: (authorization) => {
      const presented = BEARER.exec(authorization ?? '')?.[1];
      if (presented === undefined) return undefined;
      const given = digest(presented);
      let found: ReadClient | undefined;
      for (const entry of known) {
        if (timingSafeEqual(entry.digest, given) && found === undefined) found = entry.client;
      }
      return found;
    },
  };
};
