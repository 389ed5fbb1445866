/**
 * What the metrics of `pg work` and `serve --database` read from the
 * database at each scrape: each partition's lag (as `pg status` defines it)
 * and each reactor's effects by state with its next timer. Shared state,
 * read from the tables, so every process that exports it says the same.
 */
import { EVERY_PARTITION } from '../schema/migration-partitions.js';
import type { SchemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import type { SqlQueryable } from '../sql-client.js';

/** One partition's lag. */
export interface PartitionLag {
  readonly partition: number;
  /** Events the partition still has to read (its own and the template events). */
  readonly events: number;
  /** How long it has been waiting for them, in seconds (0 when nothing waits); see `PartitionStatus.lagSeconds`. */
  readonly seconds: number;
}

/**
 * One reactor's effects. The states do not overlap: `pending` waits (a
 * timer, ready, or retrying later), `running` is being attempted under a
 * live lease, `parked` waits for an operator.
 */
export interface ReactorEffectGauges {
  readonly reactor: string;
  readonly pending: number;
  readonly parked: number;
  readonly running: number;
  /** When its earliest timer is due, ms epoch, or `null` when it has none. */
  readonly nextTimerMs: number | null;
}

/** Everything a scrape reads. */
export interface ProjectionGaugeRows {
  readonly lag: readonly PartitionLag[];
  readonly effects: readonly ReactorEffectGauges[];
}

type Row = Record<string, string | number | null>;

const num = (value: string | number | null | undefined): number => Number(value ?? 0);

/** Reads the lag of every partition and the effects of every reactor of `schema`. */
export const readProjectionGauges = async (
  db: SqlQueryable,
  schema: SchemaName,
): Promise<ProjectionGaugeRows> => {
  const lag = await send<Row>(
    db,
    sql`SELECT p.partition, lag.n AS events,
            greatest(0, extract(epoch FROM clock_timestamp() -
              greatest(lag.oldest, coalesce(p.updated_at, v.migrated_at)))) AS seconds
       FROM ${sql.id(schema, 'partitions')} AS p
       CROSS JOIN (SELECT max(migrated_at) AS migrated_at FROM ${sql.id(schema, 'schema_version')}) AS v
       CROSS JOIN LATERAL (
         SELECT count(*) AS n, min(e.received_at) AS oldest FROM ${sql.id(schema, 'events')} AS e
          WHERE e.partition IN (p.partition, ${EVERY_PARTITION}) AND e.position > p.position) AS lag
      ORDER BY p.partition`,
  );
  // Done and cancelled effects are most of the table and say nothing here.
  const effects = await send<Row>(
    db,
    sql`SELECT reactor,
            count(*) FILTER (WHERE state IN ('scheduled', 'ready', 'retrying')
                             AND NOT coalesce(lease_until > clock_timestamp(), false)) AS pending,
            count(*) FILTER (WHERE state = 'parked') AS parked,
            count(*) FILTER (WHERE state IN ('ready', 'retrying')
                             AND coalesce(lease_until > clock_timestamp(), false)) AS running,
            min(due_ms) FILTER (WHERE state = 'scheduled') AS next_timer
       FROM ${sql.id(schema, 'effects')}
      WHERE state IN ('scheduled', 'ready', 'retrying', 'parked')
      GROUP BY reactor ORDER BY reactor COLLATE "C"`,
  );
  return {
    lag: lag.rows.map((row) => {
      const events = num(row.events);
      return {
        partition: num(row.partition),
        events,
        seconds: events === 0 ? 0 : Math.round(num(row.seconds) * 1000) / 1000,
      };
    }),
    effects: effects.rows.map((row) => ({
      reactor: String(row.reactor),
      pending: num(row.pending),
      parked: num(row.parked),
      running: num(row.running),
      nextTimerMs: row.next_timer === null ? null : num(row.next_timer),
    })),
  };
};
