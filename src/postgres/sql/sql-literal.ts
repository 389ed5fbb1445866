/**
 * Values written into SQL text as literals, for the texts of several
 * statements sent as one round trip ({@link querySeveral}), which the
 * protocol lets carry no parameters. Only values whose literal cannot be
 * anything but that value: a text quoted so it reads the same whatever the
 * server's `standard_conforming_strings`, and integers checked to be safe.
 */
import { isWireId } from '../../core/events/wire-id.js';

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
 * Ids as a `bigint[]` literal; throws for a value that is not an id (a safe
 * integer: the rule of `isWireId`, by which every key a worker loads was read).
 */
export const idArrayLiteral = (ids: readonly number[]): string => {
  for (const id of ids) if (!isWireId(id)) throw new TypeError(`not an id: ${String(id)}`);
  return `'{${ids.join(',')}}'::bigint[]`;
};
