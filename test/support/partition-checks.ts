/**
 * Checks shared by the partitioned-worker tests: the tables, the quarantine
 * and the summed partition counters against one sequential fold of the store.
 */
import type pg from 'pg';
import { expect } from 'vitest';
import {
  listParticipants,
  listSignRequests,
  listTemplates,
} from '../../src/core/projections/projection-state.js';
import { createProjector } from '../../src/engine/projector.js';
import { sqlText } from '../../src/postgres/event-routing.js';
import { openPostgresEventLog } from '../../src/postgres/log/postgres-event-log.js';
import { readProjections } from '../../src/postgres/read/read-projections.js';

/**
 * Every string of a value as PostgreSQL text holds it: NUL and unpaired
 * surrogates as U+FFFD (docs/postgres.md, text that PostgreSQL cannot hold).
 */
export const asStored = <T>(value: T): T => {
  if (typeof value === 'string') return sqlText(value) as T;
  if (Array.isArray(value)) return value.map(asStored) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asStored(v)])) as T;
  }
  return value;
};

/** The fold of the whole store, in one process, in log order. */
export const foldOfStore = async (pool: pg.Pool, schema: string) => {
  const log = (await openPostgresEventLog(pool, { schema }))._unsafeUnwrap();
  const projector = createProjector({ audit: false });
  (await projector.replay(log))._unsafeUnwrap();
  return projector;
};

/** The counters summed over the partitions (the `checkpoints` view). */
export const summedCounters = async (pool: pg.Pool, schema: string) => {
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT position, applied, no_ops, conflicts, invalid, already_applied FROM ${schema}.checkpoints`,
  );
  const row = rows[0] ?? {};
  return {
    checkpoint: Number(row.position),
    applied: Number(row.applied),
    noOps: Number(row.no_ops),
    conflicts: Number(row.conflicts),
    invalid: Number(row.invalid),
    alreadyApplied: Number(row.already_applied),
  };
};

/**
 * Asserts the tables hold exactly the sequential fold: every record, every
 * quarantined position with its reason and message, and counters that count
 * each event once.
 */
export const expectEqualsSequentialFold = async (pool: pg.Pool, schema: string): Promise<void> => {
  const fold = await foldOfStore(pool, schema);
  const stored = (await readProjections(pool, { schema }))._unsafeUnwrap();
  // In the fold's own (first-seen) order, as pg export prints them.
  const folded = fold.state();
  expect(listTemplates(stored.state)).toEqual(asStored(listTemplates(folded)));
  expect(listSignRequests(stored.state)).toEqual(asStored(listSignRequests(folded)));
  expect(listParticipants(stored.state)).toEqual(asStored(listParticipants(folded)));
  expect(stored.quarantine).toEqual(
    asStored(
      fold.quarantine().map((q) => ({
        position: q.position,
        reason: q.reason.kind,
        message: q.reason.message,
        raw: q.raw,
        line: q.position,
        detail:
          q.reason.kind === 'conflict'
            ? JSON.stringify(q.reason.conflict)
            : q.reason.kind === 'invalid-event'
              ? JSON.stringify(q.reason.error)
              : null,
      })),
    ),
  );
  expect(await summedCounters(pool, schema)).toEqual({
    ...fold.stats(),
    checkpoint: fold.checkpoint,
  });
};
