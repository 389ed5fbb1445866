/**
 * The bearer tokens of the read API, matched in constant time: the time an
 * answer takes says nothing of how much of a guess was right, nor of which
 * token it came close to.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { err, ok, type Result } from 'neverthrow';
import { type GrantPurpose, grantMac, parseGrant, signGrant } from './read-grant.js';

/**
 * The shortest token accepted: 16 characters of a random base64 or hex
 * string are 64 bits or more, beyond guessing through a rate-limited API.
 */
export const MIN_TOKEN_LENGTH = 16;

/** One configured token, named for rate limits and errors (never by its value). */
export interface NamedToken {
  readonly name: string;
  readonly token: string;
  /** The companies whose records it sees. */
  readonly companies: readonly number[];
}

/** Why a set of tokens is refused, naming the token, never its value. */
export type TokenProblem =
  | { readonly kind: 'empty'; readonly name: string }
  | { readonly kind: 'short'; readonly name: string }
  | { readonly kind: 'no-companies'; readonly name: string }
  | { readonly kind: 'same'; readonly name: string; readonly other: string };

/** A token a request presented and was matched to. */
export interface ReadClient {
  /** The token's name: names the client in rate limits, never the token itself. */
  readonly name: string;
  /** The companies whose records it sees. */
  readonly companies: ReadonlySet<number>;
}

/** What a report link or its cookie was found to be. */
export type GrantVerdict =
  | {
      readonly kind: 'valid';
      readonly client: ReadClient;
      /** Seconds since 1970 after which it is refused. */
      readonly expires: number;
      /** The companies it was made for (`undefined`: all its token's). */
      readonly companies: readonly number[] | undefined;
      /** Whether it was made for an https URL. */
      readonly secure: boolean;
      /** Signs a grant of the same token (a cookie for this link). */
      readonly sign: (purpose: GrantPurpose, secure: boolean) => string;
    }
  /** Signed by a configured token, but past its expiry. */
  | { readonly kind: 'expired' }
  /** Malformed, forged, of a token changed since, or for companies the token no longer sees. */
  | { readonly kind: 'invalid' };

/** Matches the `Authorization` header of a request, or a grant it carries, to a configured token. */
export interface ReadTokens {
  /** The client of `authorization` (`Bearer TOKEN`), or `undefined` for none or an unknown token. */
  match(authorization: string | null | undefined): ReadClient | undefined;
  /** What the grant `text` (of a report link or its cookie) is at `nowMs`. */
  grant(text: string, purpose: GrantPurpose, nowMs: number): GrantVerdict;
}

// Digests have one length whatever the token's, which timingSafeEqual needs, and comparing every
// configured digest (no early exit) keeps the number of tokens configured out of the timing too.
const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

const BEARER = /^Bearer +(\S+) *$/i;

/** Why `entry` alone cannot be a token, if it cannot. */
const problemOf = (entry: NamedToken): TokenProblem | undefined => {
  const { name, token, companies } = entry;
  if (typeof token !== 'string' || token === '') return { kind: 'empty', name };
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) return { kind: 'short', name };
  // A token bound to no company would see nothing; one that sees everything is not on offer.
  if (!Array.isArray(companies) || companies.length === 0) return { kind: 'no-companies', name };
  if (!companies.every((id) => Number.isSafeInteger(id))) return { kind: 'no-companies', name };
  return undefined;
};

/**
 * The tokens of `entries`, or the first problem: an empty token, one shorter
 * than {@link MIN_TOKEN_LENGTH} or with spaces, one bound to no company, or
 * two holding the same token (whose companies would then be a guess).
 */
export const readTokens = (entries: readonly NamedToken[]): Result<ReadTokens, TokenProblem> => {
  const known: { readonly digest: Buffer; readonly token: string; readonly client: ReadClient }[] =
    [];
  const owners = new Map<string, string>();
  for (const entry of entries) {
    const problem = problemOf(entry);
    if (problem !== undefined) return err(problem);
    const { name, token, companies } = entry;
    const other = owners.get(token);
    if (other !== undefined) return err({ kind: 'same', name, other });
    owners.set(token, name);
    const client = { name, companies: new Set(companies.map((id) => id + 0)) };
    known.push({ digest: digest(token), token, client });
  }
  return ok({
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
    grant: (text, purpose, nowMs) => {
      const presented = parseGrant(text);
      if (presented === undefined) return { kind: 'invalid' };
      // Every token's MAC is computed and compared, as for bearer tokens: no early exit.
      let found: (typeof known)[number] | undefined;
      for (const entry of known) {
        const expected = grantMac(entry.token, purpose, presented);
        if (timingSafeEqual(expected, presented.mac) && found === undefined) found = entry;
      }
      if (found === undefined) return { kind: 'invalid' };
      const { client, token } = found;
      const { companies, expires, secure } = presented;
      // A link sees no company its token stopped seeing: taking one away revokes those links.
      if (companies !== undefined && !companies.every((id) => client.companies.has(id))) {
        return { kind: 'invalid' };
      }
      if (expires * 1000 <= nowMs) return { kind: 'expired' };
      const seen = companies === undefined ? client : { ...client, companies: new Set(companies) };
      return {
        kind: 'valid',
        client: seen,
        expires,
        companies,
        secure,
        sign: (as, secureCookie) =>
          signGrant(token, as, { expires, companies, secure: secureCookie }),
      };
    },
  });
};
