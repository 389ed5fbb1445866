/**
 * Several statements sent as one: parameters numbered once over the whole, the row
 * count of the last, and all or nothing when one of them fails.
 */
import { describe, expect, it } from 'vitest';
import { withWrites } from '../../../src/postgres/sql/bound-query.js';
import { sql } from '../../../src/postgres/sql/sql.js';
import { throwawayPostgres } from '../../support/postgres-server.js';

const db = throwawayPostgres(1);

describe('withWrites', () => {
  it('puts the writes in WITH queries, numbering the whole statement once', () => {
    const sent = withWrites(
      [
        sql`INSERT INTO t SELECT * FROM unnest(${[1]}::int[], ${['a']}::text[])`,
        sql`UPDATE t SET b = ${'c'} WHERE a = ${3}`,
      ],
      sql`UPDATE p SET x = ${7} WHERE y = ANY(${[0]}::bigint[])`,
    );
    expect(sent.text).toBe(
      'WITH "w0" AS (INSERT INTO t SELECT * FROM unnest($1::int[], $2::text[])), ' +
        '"w1" AS (UPDATE t SET b = $3 WHERE a = $4) ' +
        'UPDATE p SET x = $5 WHERE y = ANY($6::bigint[])',
    );
    expect(sent.values).toEqual([[1], ['a'], 'c', 3, 7, [0]]);
    const last = sql`SELECT ${1}`;
    expect(withWrites([], last)).toBe(last);
  });

  it('runs every write and reports the row count of the last; one failing write fails them all', async () => {
    await db.pool.query('CREATE TABLE rows (id int PRIMARY KEY, label text)');
    await db.pool.query('CREATE TABLE marks (id int PRIMARY KEY, at int)');
    await db.pool.query("INSERT INTO rows VALUES (1, 'one'), (2, 'two')");
    await db.pool.query('INSERT INTO marks VALUES (1, 0)');
    const insert = (ids: number[], labels: string[]) =>
      sql`INSERT INTO rows SELECT * FROM unnest(${ids}::int[], ${labels}::text[])`;
    const update = (id: number, label: string) =>
      sql`UPDATE rows AS r SET label = ${label} WHERE r.id = ${id}`;
    const mark = (at: number, id: number) => sql`UPDATE marks SET at = ${at} WHERE id = ${id}`;

    const done = withWrites([insert([3, 4], ['three', 'four']), update(1, 'uno')], mark(5, 1));
    expect((await db.pool.query(done.text, done.values)).rowCount).toBe(1);
    const missed = withWrites([], mark(6, 99));
    expect((await db.pool.query(missed.text, missed.values)).rowCount).toBe(0);
    const labels = await db.pool.query('SELECT id, label FROM rows ORDER BY id');
    expect(labels.rows).toEqual([
      { id: 1, label: 'uno' },
      { id: 2, label: 'two' },
      { id: 3, label: 'three' },
      { id: 4, label: 'four' },
    ]);

    // A row inserted twice: the update and the mark beside it are not written either.
    const clash = withWrites([insert([2], ['again']), update(2, 'dos')], mark(7, 1));
    await expect(db.pool.query(clash.text, clash.values)).rejects.toMatchObject({
      code: '23505',
    });
    const after = await db.pool.query(
      'SELECT (SELECT label FROM rows WHERE id = 2) AS label, (SELECT at FROM marks WHERE id = 1) AS at',
    );
    expect(after.rows[0]).toEqual({ label: 'two', at: 5 });
  });
});
