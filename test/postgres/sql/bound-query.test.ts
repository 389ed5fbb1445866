/**
 * Several statements sent as one: parameters renumbered in order, the row
 * count of the last, and all or nothing when one of them fails.
 */
import { describe, expect, it } from 'vitest';
import { withWrites } from '../../../src/postgres/sql/bound-query.js';
import { throwawayPostgres } from '../../support/postgres-server.js';

const db = throwawayPostgres(1);

describe('withWrites', () => {
  it('numbers each statement’s parameters after the ones before it', () => {
    const sent = withWrites(
      [
        { text: 'INSERT INTO t SELECT * FROM unnest($1::int[], $2::text[])', values: [[1], ['a']] },
        { text: 'UPDATE t SET b = $2 WHERE a = $1', values: [3, 'c'] },
      ],
      {
        text: 'UPDATE p SET x = $1 WHERE y = ANY($12::bigint[])',
        values: [7, ...Array(11).fill(0)],
      },
    );
    expect(sent.text).toBe(
      'WITH w0 AS (INSERT INTO t SELECT * FROM unnest($1::int[], $2::text[])), ' +
        'w1 AS (UPDATE t SET b = $4 WHERE a = $3) ' +
        'UPDATE p SET x = $5 WHERE y = ANY($16::bigint[])',
    );
    expect(sent.values).toEqual([[1], ['a'], 3, 'c', 7, ...Array(11).fill(0)]);
    const last = { text: 'SELECT $1', values: [1] };
    expect(withWrites([], last)).toBe(last);
  });

  it('runs every write and reports the row count of the last; one failing write fails them all', async () => {
    await db.pool.query('CREATE TABLE rows (id int PRIMARY KEY, label text)');
    await db.pool.query('CREATE TABLE marks (id int PRIMARY KEY, at int)');
    await db.pool.query("INSERT INTO rows VALUES (1, 'one'), (2, 'two')");
    await db.pool.query('INSERT INTO marks VALUES (1, 0)');
    const insert = {
      text: 'INSERT INTO rows SELECT * FROM unnest($1::int[], $2::text[])',
      values: [
        [3, 4],
        ['three', 'four'],
      ],
    };
    const update = { text: 'UPDATE rows AS r SET label = $2 WHERE r.id = $1', values: [1, 'uno'] };
    const mark = (at: number, id: number) => ({
      text: 'UPDATE marks SET at = $2 WHERE id = $1',
      values: [id, at],
    });

    const done = withWrites([insert, update], mark(5, 1));
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
    const clash = withWrites(
      [
        { ...insert, values: [[2], ['again']] },
        { ...update, values: [2, 'dos'] },
      ],
      mark(7, 1),
    );
    await expect(db.pool.query(clash.text, clash.values)).rejects.toMatchObject({ code: '23505' });
    const after = await db.pool.query(
      'SELECT (SELECT label FROM rows WHERE id = 2) AS label, (SELECT at FROM marks WHERE id = 1) AS at',
    );
    expect(after.rows[0]).toEqual({ label: 'two', at: 5 });
  });
});
