/**
 * The signed, expiring grant a report link and its cookie carry: an HMAC-SHA-256
 * keyed by a read token over what the grant allows and until when. The server
 * keeps no state for it: whoever holds the token can check it, and changing
 * the token makes every grant made from it fail the check (that is how links
 * are revoked).
 */
import { createHmac } from 'node:crypto';

/** What a grant is for: the link in a URL, or the cookie set when it is opened. */
export type GrantPurpose = 'link' | 'cookie';

/** The fields of a grant, signed together. */
export interface GrantFields {
  /** Seconds since 1970 after which it is refused. */
  readonly expires: number;
  /** The companies it sees, ascending; `undefined` for all its token's. */
  readonly companies: readonly number[] | undefined;
  /** Whether it was made for (or set over) https: the cookie is then `Secure`. */
  readonly secure: boolean;
}

/** A grant as read from a request: its fields and the MAC to check. */
export interface PresentedGrant extends GrantFields {
  /** The 32 bytes of its MAC. */
  readonly mac: Buffer;
}

/**
 * The longest grant read: far beyond the 100 companies one may list, and
 * short enough that an oversized value is refused before any work.
 */
const MAX_GRANT_LENGTH = 2048;

/** The most companies a grant may list (a token that sees more gets a link for all of them). */
export const MAX_GRANT_COMPANIES = 100;

// Expiry . companies (or `all`) . s|p . MAC (base64url of 32 bytes). Nothing else parses, so a
// forged or mangled grant is refused before any MAC is computed on it.
const GRANT =
  /^([1-9][0-9]{0,11})\.(all|-?[0-9]{1,16}(?:_-?[0-9]{1,16}){0,99})\.([sp])\.([A-Za-z0-9_-]{43})$/;

const scopeOf = (companies: readonly number[] | undefined): string =>
  companies === undefined ? 'all' : companies.join('_');

const bodyOf = (fields: GrantFields): string =>
  `${fields.expires}.${scopeOf(fields.companies)}.${fields.secure ? 's' : 'p'}`;

/** The MAC of `fields` under `token`; the purpose is signed too, so a cookie is no link. */
export const grantMac = (token: string, purpose: GrantPurpose, fields: GrantFields): Buffer =>
  createHmac('sha256', token)
    .update(`signfold read ${purpose} v1\n${bodyOf(fields)}`)
    .digest();

/** The text of a grant of `fields` signed by `token` (URL- and cookie-safe). */
export const signGrant = (token: string, purpose: GrantPurpose, fields: GrantFields): string =>
  `${bodyOf(fields)}.${grantMac(token, purpose, fields).toString('base64url')}`;

/**
 * `text` read as a grant, or `undefined` when it cannot be one: too long,
 * malformed, companies not ascending and distinct, or not safe integers.
 */
export const parseGrant = (text: string): PresentedGrant | undefined => {
  if (text.length > MAX_GRANT_LENGTH) return undefined;
  const match = GRANT.exec(text);
  if (match === null) return undefined;
  const [, expiresText = '', scope = '', flag = '', macText = ''] = match;
  const expires = Number(expiresText);
  let companies: number[] | undefined;
  if (scope !== 'all') {
    companies = scope.split('_').map(Number);
    // One grant has one text: ascending, distinct, and each as String() writes it back.
    const canonical = companies.every(
      (id, index) =>
        Number.isSafeInteger(id) &&
        String(id) === scope.split('_')[index] &&
        (index === 0 || id > (companies?.[index - 1] ?? id)),
    );
    if (!canonical) return undefined;
  }
  const mac = Buffer.from(macText, 'base64url');
  // 43 base64url characters can carry stray low bits: only the one text of the 32 bytes counts.
  if (mac.byteLength !== 32 || mac.toString('base64url') !== macText) return undefined;
  return { expires, companies, secure: flag === 's', mac };
};
