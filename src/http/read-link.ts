/**
 * `createReadLink`: a URL a person opens in a browser to reach the live
 * report with no header to set. The link carries a grant signed by a read
 * token (read-grant.ts); the read routes trade it for a cookie and redirect
 * to the same page without it, so the address bar, history and bookmarks
 * keep no secret. No server state: change the token to revoke every link.
 */
import { MAX_GRANT_COMPANIES, signGrant } from './read-grant.js';
import { MIN_TOKEN_LENGTH } from './read-tokens.js';

/** Options of {@link createReadLink}. */
export interface ReadLinkOptions {
  /** A read token the server is given (as `tokens[].token` or `--read-token-env`). */
  readonly token: string;
  /** Where the read routes are mounted, e.g. `https://reports.example.com` (for a `URL`, its `href`). */
  readonly url: string;
  /**
   * The companies the link sees: some of the token's (a company the token
   * does not see makes the link refused). Default: all the token's, as the
   * server has them when the link is opened.
   */
  readonly companies?: readonly number[];
  /** How long the link works, in ms; default 24 h, at most {@link MAX_READ_LINK_MS}. */
  readonly expiresInMs?: number;
  /** The time the link's life starts from; default now. */
  readonly now?: Date;
}

/** A link's life unless told otherwise: a working day for the person it is sent to, and more. */
export const DEFAULT_READ_LINK_MS = 24 * 3_600_000;

/**
 * The longest life of a link: one link cannot be revoked alone (only with
 * every other link of its token), so none is left working for long.
 */
export const MAX_READ_LINK_MS = 31 * 86_400_000;

const baseOf = (url: string): URL => {
  let base: URL;
  try {
    base = new URL(String(url));
  } catch {
    throw new TypeError(`url must be an absolute http or https URL (got '${String(url)}')`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new TypeError(`url must be an http or https URL (got '${base.protocol}')`);
  }
  if (base.username !== '' || base.password !== '' || base.search !== '' || base.hash !== '') {
    throw new TypeError(
      'url must be where the read routes are, without credentials, query or fragment',
    );
  }
  // The routes are under the base's path: `https://host/signfold` means `/signfold/report`.
  if (!base.pathname.endsWith('/')) base.pathname = `${base.pathname}/`;
  return base;
};

const companiesOf = (companies: readonly number[] | undefined): number[] | undefined => {
  if (companies === undefined) return undefined;
  const ids = Array.isArray(companies) ? [...new Set(companies.map((id) => id + 0))] : [];
  if (ids.length === 0 || !ids.every((id) => Number.isSafeInteger(id))) {
    throw new TypeError('companies must be company ids (whole numbers), at least one');
  }
  if (ids.length > MAX_GRANT_COMPANIES) {
    throw new RangeError(
      `a link lists at most ${MAX_GRANT_COMPANIES} companies: leave companies out to give all the token's`,
    );
  }
  return ids.sort((a, b) => a - b);
};

/**
 * The URL of the live report (`BASE/report?link=…`) for the companies of
 * `token`, working for `expiresInMs` (default 24 h). Opening it sets an
 * `HttpOnly`, `SameSite=Lax` cookie of the same life and redirects to
 * `/report`; the cookie also opens the read API's pages (docs/http.md).
 * Throws a TypeError or RangeError on invalid options.
 *
 * @example
 * ```ts
 * import { createReadLink } from 'signfold/http';
 *
 * const link = createReadLink({
 *   token: 'a-read-token-of-acme-0123456789',
 *   url: 'https://reports.example.com',
 *   expiresInMs: 3_600_000,
 * });
 * console.log(link.startsWith('https://reports.example.com/report?link=')); // true
 * ```
 */
export const createReadLink = (options: ReadLinkOptions): string => {
  const { token } = options;
  if (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new TypeError(
      `token must be a read token: at least ${MIN_TOKEN_LENGTH} characters without spaces`,
    );
  }
  const base = baseOf(options.url);
  const companies = companiesOf(options.companies);
  const life = options.expiresInMs ?? DEFAULT_READ_LINK_MS;
  if (!(Number.isSafeInteger(life) && life >= 1000 && life <= MAX_READ_LINK_MS)) {
    throw new RangeError(
      `expiresInMs must be from 1000 to ${MAX_READ_LINK_MS} (31 days) (got ${life})`,
    );
  }
  const from = (options.now ?? new Date()).getTime();
  if (!Number.isFinite(from)) throw new TypeError('now must be a valid Date');
  const expires = Math.floor((from + life) / 1000);
  const grant = signGrant(token, 'link', {
    expires,
    companies,
    secure: base.protocol === 'https:',
  });
  const link = new URL('report', base);
  link.search = `link=${grant}`;
  return link.href;
};
