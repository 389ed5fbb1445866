/** The quarantine table: records a worker could not apply, with why. */
import type { QuarantineEntry } from '../../engine/quarantine.js';
import { sqlText } from '../event-routing.js';
import type { SchemaName } from '../schema-name.js';
import type { BoundQuery } from '../sql/bound-query.js';

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
): BoundQuery | undefined =>
  entries.length === 0
    ? undefined
    : {
        text: `INSERT INTO ${schema}.quarantine (position, line, reason, message, raw, detail)
     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[])
     ON CONFLICT (position) DO NOTHING`,
        values: [
          entries.map((e) => e.position),
          entries.map((e) => e.line ?? null),
          entries.map((e) => e.reason.kind),
          entries.map((e) => sqlText(e.reason.message)),
          entries.map((e) => sqlText(e.raw)),
          entries.map(detailOf),
        ],
      };
