/**
 * The rows a forget reads and rewrites, whatever the table: candidate rows
 * are read in pages (by key order, so a page never holds the whole table),
 * each is decided on in JS, and the changed ones are written back by key
 * with one `UPDATE … FROM unnest(…)` per page.
 */
import { send } from '../sql/send.js';
import { type Sql, sql } from '../sql/sql.js';
import type { SqlQueryable } from '../sql-client.js';

/** A column of a rewrite, and the SQL type its array is bound as. */
export interface RowColumn {
  readonly name: string;
  readonly type: 'bigint' | 'integer' | 'text' | 'json';
}

/** Rows read per page. */
export const PAGE_ROWS = 2000;

const TYPE_OF: Readonly<Record<RowColumn['type'], Sql>> = {
  bigint: sql`bigint`,
  integer: sql`integer`,
  text: sql`text`,
  json: sql`json`,
};

// json arrays go in as text[] and are cast per element: a json[] parameter would be parsed twice.
const ARRAY_OF: Readonly<Record<RowColumn['type'], Sql>> = {
  bigint: sql`bigint[]`,
  integer: sql`integer[]`,
  text: sql`text[]`,
  json: sql`text[]`,
};

/**
 * Writes `rows` (the key values, then the column values, in the order of
 * `key` and `columns`) into `table` by key; returns how many rows changed.
 */
export const updateRows = async (
  db: SqlQueryable,
  table: Sql,
  key: readonly RowColumn[],
  columns: readonly RowColumn[],
  rows: readonly (readonly unknown[])[],
): Promise<number> => {
  if (rows.length === 0) return 0;
  const all = [...key, ...columns];
  const arrays = all.map((column, i) => {
    const values = rows.map((row) => row[i] ?? null);
    return sql`${values}::${ARRAY_OF[column.type]}`;
  });
  const names = sql.join(all.map((column) => sql.id(column.name)));
  const set = columns.map((c) => {
    const value = sql.id('v', c.name);
    return sql`${sql.id(c.name)} = ${c.type === 'json' ? sql`${value}::json` : value}`;
  });
  const where = key.map((c) => sql`${sql.id('t', c.name)} = ${sql.id('v', c.name)}`);
  const updated = await send(
    db,
    sql`UPDATE ${table} AS t SET ${sql.join(set)}
          FROM unnest(${sql.join(arrays)}) AS v(${names}) WHERE ${sql.join(where, sql` AND `)}`,
  );
  return updated.rowCount ?? 0;
};

/** What {@link pagedRows} reads. */
export interface PagedSelect {
  /** Schema-qualified. */
  readonly table: Sql;
  /** The primary key (integer columns), pages follow its order. */
  readonly key: readonly RowColumn[];
  /** The other columns read (SQL expressions, each named as the row's member). */
  readonly columns: Sql;
  /** Which rows (SQL over the table's columns). */
  readonly where: Sql;
}

/**
 * The rows of `select` page by page, in key order: each page starts after
 * the key of the last row of the one before, so a page is an index range
 * scan and rows rewritten meanwhile are not read twice.
 */
export async function* pagedRows<Row extends Record<string, unknown>>(
  db: SqlQueryable,
  { table, key, columns, where }: PagedSelect,
): AsyncGenerator<readonly Row[]> {
  const names = sql.join(key.map((c) => sql.id(c.name)));
  let last: unknown[] = key.map((c) =>
    c.type === 'integer' ? '-2147483648' : '-9223372036854775808',
  );
  for (;;) {
    const after = sql.join(key.map((c, i) => sql`${last[i]}::${TYPE_OF[c.type]}`));
    const { rows } = await send<Row>(
      db,
      sql`SELECT ${names}, ${columns} FROM ${table}
           WHERE (${names}) > (${after}) AND (${where})
           ORDER BY ${names} LIMIT ${PAGE_ROWS}`,
    );
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE_ROWS) return;
    const end = rows.at(-1) as Row;
    last = key.map((c) => end[c.name]);
  }
}
