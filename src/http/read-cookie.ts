/**
 * The cookie a report link is traded for. `HttpOnly`: no script of a page
 * can read it. `SameSite=Lax`: sent when a person follows a link from
 * another site (an e-mail, a chat) but never with another site's
 * subresource or form request; `Strict` would not be sent on the redirect of
 * a navigation that began on another site, so the link would land on a 401.
 * `Secure` (and then the `__Host-` name, which pins it to this host and path
 * `/`) when the link was made for https or the request came over it. Its
 * `Max-Age` ends when the link's grant does, and the grant it carries says
 * so too, whatever the browser keeps.
 */

/** The cookie's name over http. */
export const READ_COOKIE = 'signfold-read';

/** Its name when `Secure`: browsers refuse a `__Host-` cookie with a Domain, another Path or no Secure. */
export const SECURE_READ_COOKIE = '__Host-signfold-read';

/** A request carries at most this many of our cookies that are looked at; more are refused. */
const MAX_PRESENTED = 4;

/** The `Set-Cookie` value carrying `grant` for `maxAgeSeconds`. */
export const readCookie = (grant: string, maxAgeSeconds: number, secure: boolean): string =>
  secure
    ? `${SECURE_READ_COOKIE}=${grant}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax; Secure`
    : `${READ_COOKIE}=${grant}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax`;

/** The `Set-Cookie` value that removes the cookie `name` (one of ours). */
export const clearedReadCookie = (name: string): string =>
  name === SECURE_READ_COOKIE
    ? `${SECURE_READ_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure`
    : `${READ_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`;

/** One of our cookies as a request presented it. */
export interface PresentedCookie {
  readonly name: string;
  readonly value: string;
}

/**
 * Our cookies in the `Cookie` header `header`, in order; `undefined` when
 * there are more than a handful (nothing a browser we set them in sends).
 */
export const presentedReadCookies = (
  header: string | null,
): readonly PresentedCookie[] | undefined => {
  if (header === null) return [];
  const found: PresentedCookie[] = [];
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at === -1) continue;
    const name = pair.slice(0, at).trim();
    if (name !== READ_COOKIE && name !== SECURE_READ_COOKIE) continue;
    if (found.length === MAX_PRESENTED) return undefined;
    found.push({ name, value: pair.slice(at + 1).trim() });
  }
  return found;
};
