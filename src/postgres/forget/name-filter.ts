/**
 * Cheap SQL pre-filters for a forget: which rows may hold a name or an id,
 * so that only those are read and decided on in JS by the core rule
 * (`recordErasures`, `eraseInText`). A filter may let through rows that hold
 * nothing (the rule then changes nothing); it must never keep out one that
 * holds something, whatever form the name is stored in (NFC or NFD, JSON
 * escapes, U+FFFD for what PostgreSQL text cannot hold).
 */
import { type Sql, sql } from '../sql/sql.js';

/** Printable ASCII that JSON writes as itself and Unicode normalization never changes. */
const plain = (code: number): boolean =>
  code >= 0x20 && code <= 0x7e && code !== 0x22 && code !== 0x5c;

/**
 * The longest run of {@link plain} characters of `name` that every stored
 * form of it contains, or `undefined` when it has none of at least two
 * characters (a name made of escapes, marks or symbols: then every row is
 * read). A run's last character is dropped when a non-ASCII character
 * follows it, since a combining mark may compose with it under NFC.
 */
export const needleOf = (name: string): string | undefined => {
  let best = '';
  let start = 0;
  for (let i = 0; i <= name.length; i += 1) {
    const code = i < name.length ? name.charCodeAt(i) : -1;
    if (code !== -1 && plain(code)) continue;
    const end = code > 0x7e ? i - 1 : i;
    if (end - start > best.length) best = name.slice(start, end);
    start = i + 1;
  }
  return best.length >= 2 ? best : undefined;
};

/** Where the text of some names may be found. */
export interface NameFilter {
  /** Substrings of which every stored form of each name contains one. */
  readonly needles: readonly string[];
  /** Some name has no needle: every row may hold it. */
  readonly everyRow: boolean;
}

/** The filter of `names` (an empty list: no row). */
export const nameFilterOf = (names: readonly string[]): NameFilter => {
  const needles = new Set<string>();
  let everyRow = false;
  for (const name of names) {
    if (name === '') continue;
    const needle = needleOf(name);
    if (needle === undefined) everyRow = true;
    else needles.add(needle);
  }
  return { needles: [...needles], everyRow };
};

/**
 * SQL that is true when `column` may hold one of the names: every row that
 * holds text when the filter lets every row through, none when it has no
 * needle, else those that hold one of `filter.needles`.
 */
export const nameCondition = (column: Sql, filter: NameFilter): Sql => {
  if (filter.everyRow) return sql`(${column} IS NOT NULL)`;
  if (filter.needles.length === 0) return sql`false`;
  return sql`EXISTS (SELECT 1 FROM unnest(${filter.needles}::text[]) AS needle(t) WHERE strpos(${column}, needle.t) > 0)`;
};
