/**
 * The `postgres://` URL of the commands that use PostgreSQL, and what of it
 * may be shown: a URL carries its password, and no message, report or
 * output of signfold may carry that password, even when the URL is
 * malformed or a message of the server or of `pg` quotes a part of it.
 */
import { usageError } from './cli-error.js';

/** Where the URL came from, as messages name it. */
export type UrlOrigin = '--database' | 'DATABASE_URL';

/** What stands for a left-out secret. */
const HIDDEN = '***';

/** `postgres://` or `postgresql://`, with the slashes: anything else is no server address. */
const HIERARCHICAL_POSTGRES = /^postgres(?:ql)?:\/\//i;

/** The scheme and slashes a URL starts with (`postgres://`), or nothing. */
const SCHEME_PREFIX = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The text of a URL that could not be parsed, with whatever could be a
 * secret left out: everything between the scheme and the last `@` (a
 * password with an unescaped `/`, `#`, `?` or `@` is often why the URL
 * does not parse) and every query value. `postgres://…@127.0.0.1:notaport/app`.
 */
export const maskedUrlText = (database: string): string => {
  const scheme = SCHEME_PREFIX.exec(database)?.[0] ?? '';
  const at = database.lastIndexOf('@');
  const afterUser = at === -1 ? database.slice(scheme.length) : database.slice(at + 1);
  const query = afterUser.indexOf('?');
  const address = query === -1 ? afterUser : `${afterUser.slice(0, query)}?…`;
  return `${scheme}${at === -1 ? '' : '…@'}${address}`;
};

/**
 * `database` as a URL if it is a `postgres://` (or `postgresql://`) one;
 * a usage error naming `origin` otherwise, which never quotes a password.
 */
export const checkDatabaseUrl = (database: string, origin: UrlOrigin = '--database'): URL => {
  let url: URL | undefined;
  try {
    url = new URL(database);
  } catch {
    url = undefined;
  }
  if (url !== undefined && url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw usageError(`${origin} must be a postgres:// URL (got '${url.protocol}')`);
  }
  // `postgres:user:pw@host/db` parses as a URL with no host whose path holds the password.
  if (url === undefined || !HIERARCHICAL_POSTGRES.test(database)) {
    throw usageError(
      `${origin} must be a URL such as postgres://user@host:5432/db (got '${maskedUrlText(database)}')`,
    );
  }
  return url;
};

/** Every spelling of the URL's password (in the authority or as `?password=`), longest first. */
const secretsOf = (database: string): string[] => {
  let url: URL;
  try {
    url = new URL(database);
  } catch {
    return [];
  }
  const secrets = new Set<string>([url.password, ...url.searchParams.getAll('password')]);
  for (const secret of [...secrets]) {
    try {
      secrets.add(decodeURIComponent(secret));
    } catch {
      // Not percent-encoded text: the raw spelling is the one to hide.
    }
  }
  return [...secrets].filter((secret) => secret !== '').sort((a, b) => b.length - a.length);
};

/**
 * `text` with every spelling of `database`'s password replaced by `***`:
 * for messages of `pg` or of the server, which may quote a part of the URL.
 */
export const withoutPassword = (text: string, database: string): string =>
  secretsOf(database).reduce((hidden, secret) => hidden.split(secret).join(HIDDEN), text);

/** The URL without its password (nor a `password` query parameter): what may be shown, printed and kept in a report. */
export const shownUrl = (database: string): string => {
  const url = checkDatabaseUrl(database);
  url.password = '';
  if (url.searchParams.has('password')) url.searchParams.delete('password');
  return url.href;
};
