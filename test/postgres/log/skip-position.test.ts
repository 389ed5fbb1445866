import { describe, expect, it } from 'vitest';
import { openPostgresEventLog } from '../../../src/postgres/log/postgres-event-log.js';
import { skipPosition } from '../../../src/postgres/log/skip-position.js';
import { readProjections } from '../../../src/postgres/read/read-projections.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import { createProjectionWorker } from '../../../src/postgres/worker/projection-worker.js';
import { requestEvent, runCli, templateEvent } from '../../cli/cli-helpers.js';
import { expectEqualsSequentialFold } from '../../support/partition-checks.js';
import { throwawayPostgres } from '../../support/postgres-server.js';

const db = throwawayPostgres();

/**
 * A schema whose sign_requests table refuses the name `evil`, with a template, requests 1–3
 * (request 2 named `evil`) and the completions of 1 and 3; returns the position of request 2.
 */
const refusingStore = async (schema: string): Promise<number> => {
  (await migrate(db.pool, { schema, partitions: 2 }))._unsafeUnwrap();
  await db.pool.query(
    `ALTER TABLE ${schema}.sign_requests ADD CONSTRAINT refuse_evil CHECK (name <> 'evil')`,
  );
  const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
  let evil = 0;
  const append = async (event: object) =>
    (await log.append(event))._unsafeUnwrap() as { position: number };
  await append(templateEvent('template-activated'));
  for (const id of [1, 2, 3]) {
    const extra = id === 2 ? { signRequestName: 'evil' } : {};
    const stored = await append(requestEvent('sign-request-sent', id, true, extra));
    if (id === 2) evil = stored.position;
  }
  for (const id of [1, 3]) await append(requestEvent('sign-request-completed', id, true));
  await log.close();
  return evil;
};

const quarantineAt = async (schema: string, position: number) => {
  const stored = (await readProjections(db.pool, { schema }))._unsafeUnwrap();
  return stored.quarantine.find((q) => q.position === position);
};

describe('an event the database refuses', () => {
  it('pg work names its position and the skip command; pg skip quarantines it and work goes on', async () => {
    const schema = 'refused_cli';
    const evil = await refusingStore(schema);
    const database = ['--database', db.server.url, '--schema', schema];
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const failed = await runCli(['pg', 'work', '--drain', '--batch-size', '100', ...database]);
      expect(failed.code).toBe(2);
      expect(failed.stdout).toBe('');
      expect(failed.stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^signfold: projecting position ${evil} \\(partition \\d+\\) of ${schema}\\.events failed: .*refuse_evil.*\\(SQLSTATE 23514\\); if it fails again, skip it: signfold pg skip --position ${evil} --schema ${schema}$`,
          ),
        ),
      ]);
    }
    // The events before it that its partition reads went in, one at a time.
    const { rows } = await db.pool.query<{ position: string; before: string; last_error: string }>(
      `SELECT p.position, p.last_error,
              (SELECT max(e.position) FROM ${schema}.events AS e
                WHERE e.partition IN (p.partition, -1) AND e.position < $1) AS before
         FROM ${schema}.partitions AS p
        WHERE p.partition = (SELECT partition FROM ${schema}.events WHERE position = $1)`,
      [evil],
    );
    expect(Number(rows[0]?.position)).toBe(Number(rows[0]?.before));
    expect(rows[0]?.last_error).toContain(`pg skip --position ${evil}`);

    const skipped = await runCli(['pg', 'skip', '--position', String(evil), ...database]);
    expect(skipped).toMatchObject({ code: 0, stderr: '' });
    expect(skipped.stdout).toMatch(
      new RegExp(
        `^position ${evil} skipped: partition \\d+ will quarantine it instead of projecting it\\n$`,
      ),
    );
    const again = await runCli(['pg', 'skip', '--position', String(evil), ...database]);
    expect(again.stdout).toBe(`position ${evil} is already skipped: nothing to do\n`);
    expect(again.code).toBe(0);

    const worked = await runCli(['pg', 'work', '--drain', ...database]);
    expect(worked).toMatchObject({ code: 0, stderr: '' });
    expect(await quarantineAt(schema, evil)).toMatchObject({
      reason: 'bad-line',
      message: 'skipped with signfold pg skip: the worker could not project it',
    });
    // The fold of the store reads a skipped event as the workers do: the tables equal it.
    await expectEqualsSequentialFold(db.pool, schema);
    const stored = (await readProjections(db.pool, { schema }))._unsafeUnwrap();
    expect([...stored.state.signRequests.keys()].sort()).toEqual([1, 3]);

    const late = await runCli(['pg', 'skip', '--position', '1', ...database]);
    expect(late.code).toBe(2);
    expect(late.stderr).toBe(
      'signfold: position 1 is already projected by every partition that reads it: nothing skipped\n',
    );
    const none = await runCli(['pg', 'skip', '--position', '999', ...database]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`signfold: no event at position 999 in ${schema}.events\n`);
    const missing = await runCli(['pg', 'skip', ...database]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--position N is required');
  });

  it('two skips of one position at once: one records it, the other finds it skipped', async () => {
    const schema = 'refused_twice';
    const evil = await refusingStore(schema);
    const outcomes = await Promise.all([
      skipPosition(db.pool, evil, { schema, reason: 'first' }),
      skipPosition(db.pool, evil, { schema, reason: 'second' }),
    ]);
    expect(outcomes.map((o) => o._unsafeUnwrap().kind).sort()).toEqual([
      'already-skipped',
      'skipped',
    ]);
    const { rows } = await db.pool.query(`SELECT position FROM ${schema}.skipped`);
    expect(rows).toEqual([{ position: String(evil) }]);
  });

  it('a skip between a worker’s fold and its write makes the worker fold again', async () => {
    const schema = 'skipped_in_flight';
    (await migrate(db.pool, { schema, partitions: 1 }))._unsafeUnwrap();
    const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
    (await log.append(templateEvent('template-activated')))._unsafeUnwrap();
    const target = (await log.append(requestEvent('sign-request-sent', 1, true)))._unsafeUnwrap();
    await log.close();
    let folds = 0;
    const worker = (
      await createProjectionWorker(db.pool, {
        schema,
        onFolded: async () => {
          folds += 1;
          if (folds === 1) {
            const skipped = await skipPosition(db.pool, target.position, { schema });
            expect(skipped._unsafeUnwrap().kind).toBe('skipped');
          }
        },
      })
    )._unsafeUnwrap();
    const drained = (await worker.drain())._unsafeUnwrap();
    expect(folds).toBeGreaterThan(1);
    expect(drained).toMatchObject({ applied: 1, invalid: 1 });
    expect(await quarantineAt(schema, target.position)).toMatchObject({ reason: 'bad-line' });
    await expectEqualsSequentialFold(db.pool, schema);
  });

  it('a batch refused as a whole but not event by event goes in one at a time, and work goes on', async () => {
    const schema = 'refused_as_batch';
    (await migrate(db.pool, { schema, partitions: 1 }))._unsafeUnwrap();
    // Refuses any statement that inserts more than one sign request: no single event is the cause.
    await db.pool.query(`
      CREATE FUNCTION ${schema}.one_at_a_time() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT count(*) FROM inserted) > 1 THEN RAISE EXCEPTION 'more than one row'; END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER one_at_a_time AFTER INSERT ON ${schema}.sign_requests
        REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION ${schema}.one_at_a_time();`);
    const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
    (await log.append(templateEvent('template-activated')))._unsafeUnwrap();
    for (const id of [1, 2, 3]) {
      (await log.append(requestEvent('sign-request-sent', id, true)))._unsafeUnwrap();
    }
    await log.close();
    const worked = await runCli([
      'pg',
      'work',
      '--drain',
      '--database',
      db.server.url,
      '--schema',
      schema,
    ]);
    expect(worked).toMatchObject({ code: 0, stderr: '' });
    await expectEqualsSequentialFold(db.pool, schema);
    const stored = (await readProjections(db.pool, { schema }))._unsafeUnwrap();
    expect(stored.state.signRequests.size).toBe(3);
  });
});
