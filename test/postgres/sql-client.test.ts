/**
 * Prepared statements: parsed once per connection, and given up for good
 * (the statement run again unprepared) where a pooler loses them.
 */
import { describe, expect, it } from 'vitest';
import { openPostgresEventLog } from '../../src/postgres/log/postgres-event-log.js';
import { migrate } from '../../src/postgres/schema/migrate.js';
import { queryPrepared } from '../../src/postgres/sql-client.js';
import { events } from '../../src/testing/index.js';
import { throwawayPostgres } from '../support/postgres-server.js';

const db = throwawayPostgres(1);

/** The prepared statements of the pool's one connection that signfold made. */
const preparedNames = async (): Promise<string[]> => {
  const { rows } = await db.pool.query<{ name: string }>(
    `SELECT name FROM pg_prepared_statements WHERE name LIKE 'signfold\\_%' ORDER BY name`,
  );
  return rows.map((row) => row.name);
};

describe('queryPrepared', () => {
  // First: the statements are still prepared here (the next test stops that for the process).
  it('passes every other failure on as it is', async () => {
    await expect(queryPrepared(db.pool, 'SELECT * FROM no_such_table', [])).rejects.toMatchObject({
      code: '42P01',
    });
    // And the process still prepares: a refusal of another kind did not stop that.
    expect((await queryPrepared(db.pool, 'SELECT 1 AS one', [])).rows).toEqual([{ one: 1 }]);
    expect(await preparedNames()).toHaveLength(1);
    await db.pool.query('DEALLOCATE ALL');
  });

  it('prepares an append once per connection, and runs it again unprepared where the statement was lost', async () => {
    (await migrate(db.pool, { schema: 'prep' }))._unsafeUnwrap();
    const log = (await openPostgresEventLog(db.pool, { schema: 'prep' }))._unsafeUnwrap();
    (
      await log.append(events.templateActivated({ templateId: 1 }), { deliveryId: 'a' })
    )._unsafeUnwrap();
    (
      await log.append(events.templateActivated({ templateId: 2 }), { deliveryId: 'b' })
    )._unsafeUnwrap();
    // One connection, one insert statement prepared, however many appends.
    const names = await preparedNames();
    expect(names).toHaveLength(1);

    // What a pooler in transaction mode does: the statement is gone from the server
    // connection the next Bind reaches, while the client believes it parsed.
    await db.pool.query('DEALLOCATE ALL');
    const third = await log.append(events.templateActivated({ templateId: 3 }), {
      deliveryId: 'c',
    });
    expect(third._unsafeUnwrap()).toMatchObject({ kind: 'appended', position: 3 });
    // From then on nothing is prepared in this process, and appends go on.
    (
      await log.append(events.templateActivated({ templateId: 4 }), { deliveryId: 'd' })
    )._unsafeUnwrap();
    expect(await preparedNames()).toEqual([]);
    const { rows } = await db.pool.query<{ delivery_id: string }>(
      'SELECT delivery_id FROM prep.events ORDER BY position',
    );
    expect(rows.map((row) => row.delivery_id)).toEqual(['a', 'b', 'c', 'd']);
  });
});
