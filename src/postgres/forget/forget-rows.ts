/**
 * The rows a forget reads and rewrites, whatever the table: candidate rows
 * are read in pages (by key order, so a page never holds the whole table),
 * each is decided on in JS, and the changed ones are written back by key
 * with one `UPDATE … FROM unnest(…)` per page.
 */
import type { SqlQueryable } from '../sql-client.js';

/** A column of a rewrite, and the SQL type its array is bound as. */
export interface RowColumn {
  readonly name: string;
  readonly type: 'bigint' | 'integer' | 'text' | 'json';
}

/** Rows read per page. */
export const PAGE_ROWS = 2000;

/** Builds the `$n` placeholders of a statement as values are added. */
export class SqlParams {
  readonly values: unknown[] = [];

  /** The placeholder of `value`, added now. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * Writes `rows` (the key values, then the column values, in the order of
 * `key` and `columns`) into `table` by key; returns how many rows changed.
 */
export const updateRows = async (
  db: SqlQueryable,
  table: string,
  key: readonly RowColumn[],
  columns: readonly RowColumn[],
  rows: readonly (readonly unknown[])[],
): Promise<number> => {
  if (rows.length === 0) return 0;
  const all = [...key, ...columns];
  const arrays = all.map((_, i) => rows.map((row) => row[i] ?? null));
  // json arrays go in as text[] and are cast per element: a json[] parameter would be parsed twice.
  const unnested = all
    .map((column, i) => `$${i + 1}::${column.type === 'json' ? 'text' : column.type}[]`)
    .join(', ');
  const names = all.map((column) => column.name).join(', ');
  const set = columns
    .map((c) => `${c.name} = v.${c.name}${c.type === 'json' ? '::json' : ''}`)
    .join(', ');
  const where = key.map((c) => `t.${c.name} = v.${c.name}`).join(' AND ');
  const updated = await db.query(
    `UPDATE ${table} AS t SET ${set} FROM unnest(${unnested}) AS v(${names}) WHERE ${where}`,
    arrays,
  );
  return updated.rowCount ?? 0;
};

/** What {@link pagedRows} reads. */
export interface PagedSelect {
  /** Schema-qualified. */
  readonly table: string;
  /** The primary key (integer columns), pages follow its order. */
  readonly key: readonly RowColumn[];
  /** The other columns read (SQL expressions, each named as the row's member). */
  readonly columns: string;
  /** Which rows (SQL over the table's columns, placeholders of `params`). */
  readonly where: string;
  readonly params: SqlParams;
}

/**
 * The rows of `select` page by page, in key order: each page starts after
 * the key of the last row of the one before, so a page is an index range
 * scan and rows rewritten meanwhile are not read twice.
 */
export async function* pagedRows<Row extends Record<string, unknown>>(
  db: SqlQueryable,
  select: PagedSelect,
): AsyncGenerator<readonly Row[]> {
  const { table, key, columns, where, params } = select;
  const names = key.map((c) => c.name).join(', ');
  const first = params.values.length + 1;
  const after = key.map((c, i) => `$${first + i}::${c.type}`).join(', ');
  const sql = `SELECT ${names}, ${columns} FROM ${table}
                WHERE (${names}) > (${after}) AND (${where})
                ORDER BY ${names} LIMIT ${PAGE_ROWS}`;
  let last: unknown[] = key.map((c) =>
    c.type === 'integer' ? '-2147483648' : '-9223372036854775808',
  );
  for (;;) {
    const { rows } = await db.query<Row>(sql, [...params.values, ...last]);
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE_ROWS) return;
    const end = rows.at(-1) as Row;
    last = key.map((c) => end[c.name]);
  }
}
