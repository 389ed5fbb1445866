/**
 * Values written into SQL text as literals, for the texts of several
 * statements sent as one round trip (`querySeveral`), which the protocol
 * lets carry no parameters: {@link inlined} writes an `sql` fragment so.
 * Only values whose literal cannot be anything but that value: a text quoted
 * so it reads the same whatever the server's `standard_conforming_strings`,
 * and integers checked to be safe.
 */
import { isWireId } from '../../core/events/wire-id.js';
import type { Sql } from './sql.js';

/**
 * `text` as an SQL string literal: quotes doubled, and with a backslash in
 * it an escape string (`E'…'`) with backslashes doubled, as libpq's
 * `PQescapeLiteral` does.
 */
export const textLiteral = (text: string): string => {
  const quoted = `'${text.replaceAll("'", "''")}'`;
  return text.includes('\\') ? `E${quoted.replaceAll('\\', '\\\\')}` : quoted;
};

/** `n` as an SQL integer literal; throws for a number that is not a safe integer. */
export const integerLiteral = (n: number): string => {
  if (!Number.isSafeInteger(n)) throw new TypeError(`not a safe integer: ${n}`);
  return String(n);
};

/**
 * Ids as an array literal (`'{1,2}'`, which the statement casts, `::bigint[]`);
 * throws for a value that is not an id (a safe integer: the rule of
 * `isWireId`, by which every key a worker loads was read).
 */
export const idArrayLiteral = (ids: readonly unknown[]): string => {
  for (const id of ids) if (!isWireId(id)) throw new TypeError(`not an id: ${String(id)}`);
  return `'{${ids.join(',')}}'`;
};

/** A value as its literal: a text, a safe integer, or an array of ids (as `'{…}'`, to be cast). */
const literalOf = (value: unknown): string => {
  if (typeof value === 'string') return textLiteral(value);
  if (typeof value === 'number') return integerLiteral(value);
  if (Array.isArray(value)) return idArrayLiteral(value);
  throw new TypeError(`no literal for ${typeof value} in a statement sent with others`);
};

/**
 * `query`'s text with its values written in as literals, for a statement
 * sent with others in one text (`querySeveral`): written here, by
 * these rules only, and never by the statement's author.
 */
export const inlined = (query: Sql): string => query.render(literalOf);
