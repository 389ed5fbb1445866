/** Where a reactor without a checkpoint starts on PostgreSQL. */
import type { Reactor } from '../../core/reactors/reactor-types.js';
import type { SchemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import type { SqlQueryable } from '../sql-client.js';

/**
 * `--from end`: every partition's checkpoint of each reactor that has none
 * yet becomes the last stored position, so it reacts only to what is
 * appended from now on. Reactors with a checkpoint are left alone. Without
 * this, a new reactor starts at the beginning of the log (the catch-up).
 */
export const startReactorsAtEnd = async (
  db: SqlQueryable,
  schema: SchemaName,
  reactors: readonly Reactor[],
): Promise<void> => {
  await send(
    db,
    sql`INSERT INTO ${sql.id(schema, 'reactor_progress')} (reactor, partition, position, watermark_ms)
     SELECT r, p.partition, (SELECT coalesce(max(position), 0) FROM ${sql.id(schema, 'events')}),
            (extract(epoch FROM clock_timestamp()) * 1000)::bigint
       FROM ${sql.id(schema, 'partitions')} AS p,
            unnest(${reactors.map((reactor) => reactor.name)}::text[]) AS r
     ON CONFLICT (reactor, partition) DO NOTHING`,
  );
};
