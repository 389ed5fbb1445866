/**
 * Reading records from the projection tables into a {@link ProjectionState}
 * and writing back the records a batch changed.
 */
import { freeze } from 'immer';
import type { ParticipantId, SignRequestId, TemplateId } from '../core/ids.js';
import type { ProjectionState } from '../core/projections/projection-state.js';
import { markPublished } from '../core/projections/published-states.js';
import type {
  ParticipantView,
  SignRequestView,
  TemplateView,
} from '../core/projections/records.js';
import {
  columnArrays,
  insertSql,
  PARTICIPANTS,
  SIGN_REQUESTS,
  selectColumnsSql,
  type TableSpec,
  TEMPLATES,
  updateSql,
  viewOfRow,
} from './projection-columns.js';
import type { SchemaName } from './schema-name.js';
import { queryPrepared, type SqlQueryable } from './sql-client.js';
import type { SqlStatement } from './sql-statement.js';

/** The records a batch of events may read. */
export interface RecordKeys {
  readonly templates: ReadonlySet<number>;
  readonly signRequests: ReadonlySet<number>;
  /** Sign requests whose participants are needed. */
  readonly participantsOf: ReadonlySet<number>;
}

/** The rows of `spec`'s table matching `where`, as views. */
export const select = async <View>(
  db: SqlQueryable,
  spec: TableSpec<View>,
  schema: SchemaName,
  where: string,
  values: unknown[],
  { prepared = false }: { readonly prepared?: boolean } = {},
): Promise<View[]> => {
  const sql = `${selectColumnsSql(spec, schema)} ${where}`;
  // Prepared only where asked: never inside a transaction (see queryPrepared).
  const { rows } = prepared
    ? await queryPrepared<Record<string, unknown>>(db, sql, values)
    : await db.query<Record<string, unknown>>(sql, values);
  return rows.map((row) => viewOfRow(spec, row));
};

const toState = (
  templates: readonly TemplateView[],
  signRequests: readonly SignRequestView[],
  participants: readonly ParticipantView[],
): ProjectionState => {
  const byRequest = new Map<SignRequestId, Map<ParticipantId, ParticipantView>>();
  for (const p of participants) {
    let ofRequest = byRequest.get(p.signRequestId);
    if (ofRequest === undefined) {
      ofRequest = new Map();
      byRequest.set(p.signRequestId, ofRequest);
    }
    ofRequest.set(p.id, p);
  }
  // Deeply frozen and marked, so a working copy shares these records and
  // copies only what it changes: changed records are then the new objects.
  return markPublished(
    freeze(
      {
        templates: new Map(templates.map((t) => [t.id, t] as [TemplateId, TemplateView])),
        signRequests: new Map(
          signRequests.map((r) => [r.id, r] as [SignRequestId, SignRequestView]),
        ),
        participants: byRequest,
      },
      true,
    ),
  );
};

/**
 * Loads the records named by `keys` (those that exist; templates from
 * `templateRows`) as a published state. Outside any transaction: its
 * statements are prepared (see `queryPrepared`).
 */
export const loadRecords = async (
  db: SqlQueryable,
  schema: SchemaName,
  keys: RecordKeys,
  templateRows: TemplateRows,
): Promise<ProjectionState> => {
  // No query for an empty set of keys: a live worker's small batches often
  // name no template, and a partition with no new event names nothing.
  const templates =
    keys.templates.size === 0 ? [] : await templateRows.load(db, schema, [...keys.templates]);
  const signRequests =
    keys.signRequests.size === 0
      ? []
      : await select(
          db,
          SIGN_REQUESTS,
          schema,
          'WHERE id = ANY($1::bigint[])',
          [[...keys.signRequests]],
          { prepared: true },
        );
  const participants =
    keys.participantsOf.size === 0
      ? []
      : await select(
          db,
          PARTICIPANTS,
          schema,
          'WHERE sign_request_id = ANY($1::bigint[])',
          [[...keys.participantsOf]],
          { prepared: true },
        );
  return toState(templates, signRequests, participants);
};

/**
 * Every record of the tables as a {@link ProjectionState} (each collection in
 * id order), e.g. to compare the tables with an in-memory fold.
 */
export const readAllRecords = async (
  db: SqlQueryable,
  schema: SchemaName,
): Promise<ProjectionState> => {
  const templates = await select(db, TEMPLATES, schema, 'ORDER BY id', []);
  const signRequests = await select(db, SIGN_REQUESTS, schema, 'ORDER BY id', []);
  const participants = await select(db, PARTICIPANTS, schema, 'ORDER BY sign_request_id, id', []);
  return toState(templates, signRequests, participants);
};

/** Records of `after` that are not the very objects `before` holds: new, or rewritten. */
export interface Changes<V> {
  readonly created: V[];
  readonly updated: V[];
}

/**
 * Reads and writes one partition's templates (partition-templates.ts has the
 * two kinds): declared here, where it is used, so that file can build on
 * {@link select} and {@link write} without the two importing each other.
 */
export interface TemplateRows {
  /** The templates of `ids` that exist, outside any transaction (prepared). */
  load(db: SqlQueryable, schema: SchemaName, ids: readonly number[]): Promise<TemplateView[]>;
  /** The statements that write `changes`. */
  writes(schema: SchemaName, changes: Changes<TemplateView>): SqlStatement[];
}

const collect = <K, V>(
  before: ReadonlyMap<K, V> | undefined,
  after: ReadonlyMap<K, V>,
  into: Changes<V>,
): void => {
  for (const [key, record] of after) {
    const earlier = before?.get(key);
    if (earlier === record) continue;
    if (earlier === undefined) into.created.push(record);
    else into.updated.push(record);
  }
};

/** The statements that insert the created records and update the changed ones (none for no change). */
export const writeStatements = <View>(
  schema: SchemaName,
  spec: TableSpec<View>,
  changes: Changes<View>,
): SqlStatement[] => [
  ...(changes.created.length === 0
    ? []
    : [{ text: insertSql(spec, schema), values: columnArrays(spec, changes.created) }]),
  ...(changes.updated.length === 0
    ? []
    : [{ text: updateSql(spec, schema), values: columnArrays(spec, changes.updated) }]),
];

/**
 * The statements that write every record of `after` that is not the very
 * object `before` holds: `before` must hold every existing record the batch
 * could touch (see {@link loadRecords}), so a record it lacks is new and is
 * inserted. The inserted and the updated records are distinct rows, so the
 * statements can be sent as one ({@link withWrites}).
 */
export const changeStatements = (
  schema: SchemaName,
  before: ProjectionState,
  after: ProjectionState,
  templateRows: TemplateRows,
): SqlStatement[] => {
  const templates: Changes<TemplateView> = { created: [], updated: [] };
  const signRequests: Changes<SignRequestView> = { created: [], updated: [] };
  const participants: Changes<ParticipantView> = { created: [], updated: [] };
  collect(before.templates, after.templates, templates);
  collect(before.signRequests, after.signRequests, signRequests);
  for (const [id, ofRequest] of after.participants) {
    const earlier = before.participants.get(id);
    if (earlier !== ofRequest) collect(earlier, ofRequest, participants);
  }
  return [
    ...templateRows.writes(schema, templates),
    ...writeStatements(schema, SIGN_REQUESTS, signRequests),
    ...writeStatements(schema, PARTICIPANTS, participants),
  ];
};
