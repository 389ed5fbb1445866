/**
 * Several statements sent as one: each statement sent is a round trip and,
 * on the client, a query's worth of protocol work, which is what a worker's
 * batch spends most on.
 */
import { type Sql, sql } from './sql.js';

/**
 * `writes` (data-modifying statements: `INSERT`, `UPDATE`) and `last` as one
 * statement: the writes as `WITH` queries. Their parameters need no
 * renumbering: fragments are numbered once, as the whole. PostgreSQL runs
 * them all on one snapshot, so the writes must touch rows no other of them
 * reads or writes (a batch's inserted and updated records are distinct
 * rows); the statement's row count is `last`'s. An error in any of them
 * fails the whole statement.
 */
export const withWrites = (writes: readonly Sql[], last: Sql): Sql => {
  if (writes.length === 0) return last;
  const ctes = writes.map((write, i) => sql`${sql.id(`w${i}`)} AS (${write})`);
  return sql`WITH ${sql.join(ctes)} ${last}`;
};
