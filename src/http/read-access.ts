/**
 * Who a request of the read routes is, from the one credential it is read
 * by: an `Authorization: Bearer` header if it has one (a program), else a
 * report link in its query (`?link=`, a person who just opened it), else the
 * cookie a link was traded for. A credential that is presented and fails is
 * never passed over for another: the answer says what was wrong with it.
 */
import type { FetchRequest } from '../engine/fetch-types.js';
import {
  clearedReadCookie,
  type PresentedCookie,
  presentedReadCookies,
  readCookie,
} from './read-cookie.js';
import type { ReadClient, ReadTokens } from './read-tokens.js';

/** The seconds a cookie's life leaves for the answer to reach the browser. */
const COOKIE_JOURNEY_S = 1;

/** The query parameter of a report link. */
export const LINK_PARAMETER = 'link';

/** What a request's credential was found to be. */
export type ReadAccess =
  /** A known bearer token, or a valid cookie. */
  | { readonly kind: 'client'; readonly client: ReadClient }
  /** A valid link: set the cookie and send the browser to the same page without the link. */
  | { readonly kind: 'landing'; readonly setCookie: string; readonly location: string }
  /** A link or cookie that is expired, changed or malformed; `clear` the cookies it sent. */
  | {
      readonly kind: 'refused';
      readonly why: 'expired' | 'invalid';
      readonly source: 'link' | 'cookie';
      readonly clear: readonly string[];
    }
  /** No credential, or an unknown bearer token. */
  | { readonly kind: 'none' };

/** `text` percent-decoded, or `undefined` when it is not valid percent-encoding. */
const decoded = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
};

/** The values of `?link=` in `search` (no `?`) and the other pairs, as they were written. */
const splitQuery = (search: string): { links: (string | undefined)[]; rest: string[] } => {
  const links: (string | undefined)[] = [];
  const rest: string[] = [];
  for (const pair of search === '' ? [] : search.split('&')) {
    const at = pair.indexOf('=');
    const name = at === -1 ? pair : pair.slice(0, at);
    if (decoded(name) === LINK_PARAMETER) links.push(decoded(at === -1 ? '' : pair.slice(at + 1)));
    else rest.push(pair);
  }
  return { links, rest };
};

/** Whether the request came over https, to this handler or to the proxy in front of it. */
const overHttps = (url: URL, request: FetchRequest): boolean => {
  if (url.protocol === 'https:') return true;
  const forwarded = request.headers.get('x-forwarded-proto');
  return forwarded?.split(',')[0]?.trim().toLowerCase() === 'https';
};

/** The way from a link to the same page without it, relative so a proxy's path prefix is kept. */
const locationOf = (url: URL, rest: readonly string[]): string => {
  const segment = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  return `./${segment}${rest.length === 0 ? '' : `?${rest.join('&')}`}`;
};

const linkAccess = (
  link: string | undefined,
  url: URL,
  rest: readonly string[],
  request: FetchRequest,
  tokens: ReadTokens,
  nowMs: number,
): ReadAccess => {
  const verdict = tokens.grant(link ?? '', 'link', nowMs);
  if (verdict.kind !== 'valid') {
    return { kind: 'refused', why: verdict.kind, source: 'link', clear: [] };
  }
  // Whole seconds the browser counts from its own now, which is later than this one by the
  // time the answer takes to reach it: rounded down, less one second for that journey, the cookie
  // never outlives the link (a loaded machine's answer took 17 ms more than the fraction rounded
  // off); a link with less than a second left is as good as expired. The grant the cookie carries
  // ends with the link anyway.
  const maxAge = Math.floor((verdict.expires * 1000 - nowMs) / 1000) - COOKIE_JOURNEY_S;
  if (maxAge < 1) return { kind: 'refused', why: 'expired', source: 'link', clear: [] };
  const secure = verdict.secure || overHttps(url, request);
  return {
    kind: 'landing',
    setCookie: readCookie(verdict.sign('cookie', secure), maxAge, secure),
    location: locationOf(url, rest),
  };
};

const cookieAccess = (
  cookies: readonly PresentedCookie[] | undefined,
  tokens: ReadTokens,
  nowMs: number,
): ReadAccess => {
  let why: 'expired' | 'invalid' = 'invalid';
  for (const { value } of cookies ?? []) {
    const verdict = tokens.grant(value, 'cookie', nowMs);
    if (verdict.kind === 'valid') return { kind: 'client', client: verdict.client };
    if (verdict.kind === 'expired') why = 'expired';
  }
  const names = new Set((cookies ?? []).map(({ name }) => name));
  return { kind: 'refused', why, source: 'cookie', clear: [...names].map(clearedReadCookie) };
};

/** What the credential of `request` (for `url`) is at `nowMs`. */
export const readAccess = (
  request: FetchRequest,
  tokens: ReadTokens,
  nowMs: number,
): ReadAccess => {
  const authorization = request.headers.get('authorization');
  if (authorization !== null) {
    const client = tokens.match(authorization);
    return client === undefined ? { kind: 'none' } : { kind: 'client', client };
  }
  const url = new URL(request.url);
  const { links, rest } = splitQuery(url.search.slice(1));
  if (links.length > 0) {
    // Two links in one URL is not a link anyone was given.
    if (links.length > 1) return { kind: 'refused', why: 'invalid', source: 'link', clear: [] };
    return linkAccess(links[0], url, rest, request, tokens, nowMs);
  }
  const cookies = presentedReadCookies(request.headers.get('cookie'));
  if (cookies !== undefined && cookies.length === 0) return { kind: 'none' };
  return cookieAccess(cookies, tokens, nowMs);
};
