/**
 * `signfold effects --database URL`: the report, `retry` and `skip`, while
 * workers run. `retry` and `skip` lock the rows they change and decide with
 * the same `ReactorEffects` rules as the file engine (what is parked, what is
 * invalid); an effect a worker is running is not parked, so no lock is held
 * against it for long.
 */
import type { EffectsChange, EffectsReport } from '../../core/reactors/effects-report.js';
import type { EffectsFilter } from '../../core/reactors/effects-selection.js';
import { ReactorEffects } from '../../core/reactors/reactor-effects.js';
import type { SchemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import { checkOut, type SqlPool, type SqlQueryable } from '../sql-client.js';
import { EFFECT_COLUMNS, type EffectRow, entryOfRow } from './effect-rows.js';
import { EFFECTS_CHANNEL } from './migration-reactors.js';

/** Counts per reactor and the parked effects of `schema` (the `effects --json` shape). */
export const readEffectsReport = async (
  db: SqlQueryable,
  schema: SchemaName,
): Promise<EffectsReport> => {
  const effects = sql.id(schema, 'effects');
  const counts = await send<{ name: string; pending: string; parked: string; done: string }>(
    db,
    sql`SELECT reactor AS name,
            count(*) FILTER (WHERE state IN ('scheduled', 'ready', 'retrying')) AS pending,
            count(*) FILTER (WHERE state = 'parked') AS parked,
            count(*) FILTER (WHERE state = 'done') AS done
       FROM ${effects} GROUP BY reactor ORDER BY reactor COLLATE "C"`,
  );
  const parked = await send<EffectRow>(
    db,
    sql`SELECT ${EFFECT_COLUMNS} FROM ${effects} WHERE state = 'parked' ORDER BY id`,
  );
  const timers = await send<EffectRow>(
    db,
    sql`SELECT ${EFFECT_COLUMNS} FROM ${effects} WHERE state = 'scheduled' ORDER BY due_ms, id`,
  );
  return {
    reactors: counts.rows.map((row) => ({
      name: row.name,
      pending: Number(row.pending),
      parked: Number(row.parked),
      done: Number(row.done),
    })),
    parked: parked.rows.map((row) => {
      const entry = entryOfRow(row);
      const { id, reactor, idempotencyKey, attempts, lastError, effect } = entry;
      return { id, reactor, idempotencyKey, attempts, lastError, effect };
    }),
    timers: timers.rows.flatMap((row) => {
      const { id, reactor, key, dueAt, idempotencyKey } = entryOfRow(row);
      if (dueAt === undefined) return [];
      return [
        { id, reactor, key: key ?? null, dueAt: new Date(dueAt).toISOString(), idempotencyKey },
      ];
    }),
  };
};

/** The parked effects of `schema` that `filter` selects, by id (as `selectParked` on a book). */
export const selectParkedRows = async (
  db: SqlQueryable,
  schema: SchemaName,
  filter: EffectsFilter,
): Promise<readonly number[]> => {
  const reactor = filter.reactor ?? null;
  const error = filter.error ?? null;
  const found = await send<{ id: string }>(
    db,
    sql`SELECT id FROM ${sql.id(schema, 'effects')}
      WHERE state = 'parked'
        AND (${reactor}::text IS NULL OR reactor = ${reactor})
        AND (${error}::text IS NULL OR strpos(last_error, ${error}) > 0)
      ORDER BY id`,
  );
  return found.rows.map((row) => Number(row.id));
};

/** What `editEffects` would change, changing nothing (`effects retry|skip --dry-run`). */
export const previewEdit = (
  pool: SqlPool,
  schema: SchemaName,
  edit: 'retry' | 'skip',
  ids: readonly number[],
): Promise<EffectsChange> => editEffects(pool, schema, edit, ids, Date.now(), true);

/** `retry` (a fresh round of attempts, due now) or `skip` (cancelled) of the parked effects `ids`. */
export const editEffects = async (
  pool: SqlPool,
  schema: SchemaName,
  edit: 'retry' | 'skip',
  ids: readonly number[],
  now: number = Date.now(),
  dryRun = false,
): Promise<EffectsChange> => {
  const client = await checkOut(pool);
  try {
    await client.query('BEGIN');
    const found = await send<EffectRow>(
      client,
      sql`SELECT ${EFFECT_COLUMNS} FROM ${sql.id(schema, 'effects')}
           WHERE id = ANY(${ids}::bigint[]) FOR UPDATE`,
    );
    const book = ReactorEffects.restore({
      entries: found.rows.map(entryOfRow),
      watermarks: {},
      nextId: 1,
    });
    const change = edit === 'retry' ? book.retry(ids, now) : book.skip(ids);
    const changed = book.takeChanged();
    if (dryRun) {
      await client.query('ROLLBACK');
      return change;
    }
    if (changed.length > 0) {
      await send(
        client,
        sql`UPDATE ${sql.id(schema, 'effects')} AS e
            SET state = u.state, attempts = u.attempts, due_ms = u.due,
                lease_owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
           FROM unnest(${changed.map((entry) => entry.id)}::bigint[],
                       ${changed.map((entry) => entry.state)}::text[],
                       ${changed.map((entry) => entry.attempts)}::int[],
                       ${changed.map((entry) => entry.dueAt ?? null)}::bigint[]) AS u(id, state, attempts, due)
          WHERE e.id = u.id AND e.state = 'parked'`,
      );
      if (edit === 'retry') {
        await send(client, sql`SELECT pg_notify(${EFFECTS_CHANNEL}, ${schema})`);
      }
    }
    await client.query('COMMIT');
    return change;
  } catch (cause) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw cause;
  } finally {
    client.release();
  }
};
