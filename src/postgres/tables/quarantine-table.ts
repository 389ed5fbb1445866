/** The quarantine table: records a worker could not apply, with why. */
import type { QuarantineEntry } from '../../engine/quarantine.js';
import { sqlText } from '../event-routing.js';
import type { SchemaName } from '../schema-name.js';
import { type Sql, sql } from '../sql/sql.js';

/** The structured part of a reason (the decode error or the conflict) as JSON text. */
const detailOf = (entry: QuarantineEntry): string | null => {
  const { reason } = entry;
  if (reason.kind === 'conflict') return JSON.stringify(reason.conflict);
  if (reason.kind === 'invalid-event') return JSON.stringify(reason.error);
  return null;
};

/** The statement that inserts quarantine entries (a position already there is left as it is); none for none. */
export const quarantineStatement = (
  schema: SchemaName,
  entries: readonly QuarantineEntry[],
): Sql | undefined =>
  entries.length === 0
    ? undefined
    : sql`INSERT INTO ${sql.id(schema, 'quarantine')} (position, line, reason, message, raw, detail)
     SELECT * FROM unnest(${entries.map((e) => e.position)}::bigint[],
                          ${entries.map((e) => e.line ?? null)}::bigint[],
                          ${entries.map((e) => e.reason.kind)}::text[],
                          ${entries.map((e) => sqlText(e.reason.message))}::text[],
                          ${entries.map((e) => sqlText(e.raw))}::text[],
                          ${entries.map(detailOf)}::text[])
     ON CONFLICT (position) DO NOTHING`;
