/**
 * Statements with their parameters, and several of them sent as one: each
 * statement sent is a round trip and, on the client, a query's worth of
 * protocol work, which is what a worker's batch spends most on.
 */

/** One SQL statement and the values of its `$1`… parameters. */
export interface BoundQuery {
  readonly text: string;
  readonly values: unknown[];
}

/**
 * `writes` (data-modifying statements: `INSERT`, `UPDATE`) and `last` as one
 * statement: the writes as `WITH` queries, their parameters renumbered after
 * one another. PostgreSQL runs them all on one snapshot, so the writes must
 * touch rows no other of them reads or writes (a batch's inserted and updated
 * records are distinct rows); the statement's row count is `last`'s. An error
 * in any of them fails the whole statement. The texts must hold no `$` but
 * their parameters (schema names are plain identifiers).
 */
export const withWrites = (writes: readonly BoundQuery[], last: BoundQuery): BoundQuery => {
  if (writes.length === 0) return last;
  const values: unknown[] = [];
  const renumbered = (statement: BoundQuery): string => {
    const offset = values.length;
    values.push(...statement.values);
    return statement.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  };
  const ctes = writes.map((write, i) => `w${i} AS (${renumbered(write)})`);
  return { text: `WITH ${ctes.join(', ')} ${renumbered(last)}`, values };
};
