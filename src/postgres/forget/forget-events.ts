/**
 * A forget on the events table: which names the forgotten ids were stored
 * with, and each stored event rewritten by the core rule. Rows are
 * pre-filtered in SQL (the text of an id or of a name, see name-filter.ts)
 * and decided on in JS; only changed rows are written, through the
 * controlled path of migration 6 (body and bad_line only).
 */
import type { NamesToErase } from '../../core/privacy/erase-in-text.js';
import { eraseInText } from '../../core/privacy/erase-in-text.js';
import type { ErasureSubject } from '../../core/privacy/erasure-subject.js';
import { participantsNamed } from '../../core/privacy/person-names.js';
import { namesHeldBy, recordErasures } from '../../core/privacy/record-erasures.js';
import { rewriteJsonStrings } from '../../core/privacy/rewrite-json-strings.js';
import type { SchemaName } from '../schema-name.js';
import { type Sql, sql } from '../sql/sql.js';
import type { SqlQueryable } from '../sql-client.js';
import { pagedRows, type RowColumn, updateRows } from './forget-rows.js';
import { nameCondition, nameFilterOf } from './name-filter.js';

/** An event row as the forget reads it. */
interface StoredRow extends Record<string, unknown> {
  readonly position: string;
  readonly body: string;
  readonly bad_line: string | null;
}

/**
 * A JSON number written with a fraction or an exponent right after a colon:
 * `"participantId": 7.0` or `7e0` is id 7 to the decoder, and holds no "7"
 * followed by the end of the number, so such rows are always read.
 */
const ODD_NUMBER = ':[ \\t\\n\\r]*-?[0-9]+(\\.[0-9]|[eE])';

const ID_KEY: readonly RowColumn[] = [{ name: 'position', type: 'bigint' }];

/** The SQL condition of rows that may name one of the subject's ids, or one of `names`. */
const candidates = (subject: ErasureSubject, names: readonly string[]): Sql => {
  const ids = [...subject.participantIds, ...subject.userIds].map(String);
  const parts: Sql[] = [];
  if (ids.length > 0) {
    parts.push(
      sql`EXISTS (SELECT 1 FROM unnest(${ids}::text[]) AS id(t) WHERE strpos(body, id.t) > 0)`,
      sql`body ~ ${ODD_NUMBER}`,
    );
  }
  if (names.length > 0) {
    const filter = nameFilterOf(names);
    parts.push(nameCondition(sql`body`, filter));
    parts.push(nameCondition(sql`bad_line`, filter));
    // A member may spell any of its characters as a \u escape.
    parts.push(sql`strpos(body, ${'\\u'}) > 0`);
  }
  return parts.length === 0 ? sql`false` : sql.join(parts, sql` OR `);
};

/** Positions after `after`, up to `upTo` (inclusive) when given. */
export interface PositionRange {
  readonly after: number;
  readonly upTo?: number;
}

const inRange = (range: PositionRange): Sql =>
  range.upTo === undefined
    ? sql`position > ${range.after}::bigint`
    : sql`position > ${range.after}::bigint AND position <= ${range.upTo}::bigint`;

/** The event rows of `schema` that `where` selects, page by page in position order. */
const eventPages = (
  db: SqlQueryable,
  schema: SchemaName,
  where: Sql,
): AsyncGenerator<readonly StoredRow[]> =>
  pagedRows<StoredRow>(db, {
    table: sql.id(schema, 'events'),
    key: ID_KEY,
    columns: sql`body, bad_line`,
    where,
  });

/** The parsed JSON object of an event row, or `undefined` for a bad line or text that is none. */
const eventValue = (row: StoredRow): object | undefined => {
  if (row.bad_line !== null) return undefined;
  try {
    const value: unknown = JSON.parse(row.body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The names the subject's ids (and typed names) are stored with in the
 * events of `schema` (`namesHeldBy` over every candidate event), without
 * the empty name; only the rows in `range`.
 */
export const namesInEvents = async (
  db: SqlQueryable,
  schema: SchemaName,
  subject: ErasureSubject,
  range: PositionRange,
): Promise<string[]> => {
  const where = sql`${inRange(range)} AND bad_line IS NULL AND (${candidates(subject, subject.names)})`;
  const found = new Set<string>();
  for await (const rows of eventPages(db, schema, where)) {
    for (const row of rows) {
      const value = eventValue(row);
      if (value === undefined) continue;
      for (const name of namesHeldBy(value, subject)) if (name !== '') found.add(name);
    }
  }
  return [...found];
};

/**
 * The participant ids, outside the subject's, that the events of `schema`
 * store with one of `names` (see `participantsNamed`), ascending.
 */
export const participantsNamedInEvents = async (
  db: SqlQueryable,
  schema: SchemaName,
  subject: ErasureSubject,
  names: readonly string[],
): Promise<number[]> => {
  if (names.length === 0) return [];
  const byName = { ...subject, participantIds: [], userIds: [] };
  const where = sql`bad_line IS NULL AND (${candidates(byName, names)})`;
  const found = new Set<number>();
  for await (const rows of eventPages(db, schema, where)) {
    for (const row of rows) {
      const value = eventValue(row);
      if (value === undefined) continue;
      for (const id of participantsNamed(value, names, subject.participantIds, subject.companyId)) {
        found.add(id);
      }
    }
  }
  return [...found].sort((a, b) => a - b);
};

/** A rewritten event row: its text before and after. */
export interface RewrittenEvent {
  readonly before: string;
  readonly after: string;
}

/** What {@link eraseEvents} changed (or, not writing, would change). */
export interface ErasedEvents {
  /** Rewritten rows by position. */
  readonly rows: ReadonlyMap<number, RewrittenEvent>;
  /** Of them, events (rewritten by member) and bad lines or other text (rewritten as text). */
  readonly events: number;
  readonly badLines: number;
}

/**
 * Rewrites every event of `schema` that holds the subject: an event row
 * whose body is a JSON object by `recordErasures` (only the chosen strings
 * change, every other byte is kept), a bad line or a body that is no JSON
 * object as text (`eraseInText`, its reason too). `names` are the names to
 * erase (typed, and found by {@link namesInEvents}); only the rows in
 * `range`. With `write` false, nothing is written.
 */
export const eraseEvents = async (
  db: SqlQueryable,
  schema: SchemaName,
  subject: ErasureSubject,
  names: NamesToErase,
  range: PositionRange,
  write: boolean,
): Promise<ErasedEvents> => {
  const where = sql`${inRange(range)} AND (${candidates(subject, [...names.typed, ...names.found])})`;
  const rewritten = new Map<number, RewrittenEvent>();
  let events = 0;
  let badLines = 0;
  for await (const rows of eventPages(db, schema, where)) {
    const changed: unknown[][] = [];
    for (const row of rows) {
      const value = eventValue(row);
      let body: string;
      let badLine = row.bad_line;
      if (value !== undefined) {
        body = rewriteJsonStrings(row.body, recordErasures(value, subject, names)).text;
      } else {
        body = eraseInText(row.body, names, subject.pseudonym).text;
        if (badLine !== null) badLine = eraseInText(badLine, names, subject.pseudonym).text;
      }
      if (body === row.body && badLine === row.bad_line) continue;
      const position = Number(row.position);
      rewritten.set(position, { before: row.body, after: body });
      if (value === undefined) badLines += 1;
      else events += 1;
      changed.push([row.position, body, badLine]);
    }
    if (write) {
      await updateRows(db, sql.id(schema, 'events'), ID_KEY, EVENT_COLUMNS, changed);
    }
  }
  return { rows: rewritten, events, badLines };
};

const EVENT_COLUMNS: readonly RowColumn[] = [
  { name: 'body', type: 'text' },
  { name: 'bad_line', type: 'text' },
];
