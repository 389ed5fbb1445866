/**
 * `signfold pg export`: the projection tables read back as the JSON that
 * `signfold replay --json` prints for the same events: the same arrays, in
 * the same (first-seen) order, with the same members, the quarantine
 * included, so the two compare with a diff.
 */

import {
  listParticipants,
  listSignRequests,
  listTemplates,
} from '../../core/projections/projection-state.js';
import {
  DEFAULT_SCHEMA,
  readProjections,
  type SqlPool,
  type StoredQuarantineEntry,
} from '../../postgres/index.js';
import { type EventRow, readEventRowsAt } from '../../postgres/read/read-stored-events.js';
import { EXIT, type ExitCode } from '../cli-error.js';
import { type CliIO, writeJson } from '../cli-io.js';
import type { PgTarget } from '../postgres-pool.js';
import { postgresFailure } from './failure.js';
import { storedRawPreview } from './stored-log-line.js';

/**
 * The quarantine as a replay shows it (`QuarantineEntry`): the reason an
 * object with its structured part, and `raw` the start of the record's line
 * in the log `pg events` writes (a replay keeps the whole envelope line, the
 * table the event's text only).
 */
const replayQuarantine = (
  entries: readonly StoredQuarantineEntry[],
  rows: readonly EventRow[],
): unknown[] => {
  const byPosition = new Map(rows.map((row) => [Number(row.position), row]));
  return entries.map((entry) => {
    const row = byPosition.get(entry.position);
    return {
      position: entry.position,
      line: entry.line ?? entry.position,
      raw: row === undefined ? entry.raw : storedRawPreview(row),
      reason: reasonOf(entry),
    };
  });
};

/** The reason as the projector builds it (quarantine.ts): the detail column holds its middle member. */
const reasonOf = (entry: StoredQuarantineEntry): Record<string, unknown> => {
  const detail = entry.detail === null ? undefined : (JSON.parse(entry.detail) as unknown);
  if (entry.reason === 'conflict') {
    return { kind: entry.reason, conflict: detail, message: entry.message };
  }
  if (entry.reason === 'invalid-event') {
    return { kind: entry.reason, error: detail, message: entry.message };
  }
  return { kind: entry.reason, message: entry.message };
};

/** Prints the tables as one JSON document, read in one snapshot. */
export const pgExport = async (pool: SqlPool, target: PgTarget, io: CliIO): Promise<ExitCode> => {
  const read = await readProjections(pool, target.schemaOptions);
  if (read.isErr()) throw postgresFailure(read.error);
  const { state, checkpoint, quarantine } = read.value;
  const rows = await readEventRowsAt(
    pool,
    target.schemaOptions,
    quarantine.map((entry) => entry.position),
  );
  if (rows.isErr()) throw postgresFailure(rows.error);
  const document = {
    schema: target.schemaOptions.schema ?? DEFAULT_SCHEMA,
    checkpoint,
    templates: [...listTemplates(state)],
    signRequests: [...listSignRequests(state)],
    participants: [...listParticipants(state)],
    quarantine: replayQuarantine(quarantine, rows.value),
  };
  writeJson(io.stdout, document);
  return EXIT.ok;
};
