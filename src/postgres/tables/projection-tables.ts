/**
 * Reading records from the projection tables into a {@link ProjectionState}
 * and writing back the records a batch changed.
 */
import { freeze } from 'immer';
import type { ParticipantId, SignRequestId, TemplateId } from '../../core/ids.js';
import type { ProjectionState } from '../../core/projections/projection-state.js';
import { markPublished } from '../../core/projections/published-states.js';
import type {
  ParticipantView,
  SignRequestView,
  TemplateView,
} from '../../core/projections/records.js';
import { FIRST_POSITION } from '../schema/migration-first-seen.js';
import type { SchemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { type Sql, sql } from '../sql/sql.js';
import { inlined } from '../sql/sql-literal.js';
import { querySeveral, type SqlQueryable } from '../sql-client.js';
import { type FirstSeen, participantKey } from './first-seen.js';
import {
  insertSql,
  PARTICIPANTS,
  SIGN_REQUESTS,
  selectColumnsSql,
  type TableSpec,
  TEMPLATES,
  updateSql,
  viewOfRow,
} from './projection-columns.js';

/** The records a batch of events may read. */
export interface RecordKeys {
  readonly templates: ReadonlySet<number>;
  readonly signRequests: ReadonlySet<number>;
  /** Sign requests whose participants are needed. */
  readonly participantsOf: ReadonlySet<number>;
}

/** The rows of `spec`'s table in the order `orderBy` gives, as views. */
const select = async <View>(
  db: SqlQueryable,
  spec: TableSpec<View>,
  schema: SchemaName,
  orderBy: Sql,
): Promise<View[]> => {
  const { rows } = await send(db, sql`${selectColumnsSql(spec, schema)} ORDER BY ${orderBy}`);
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

/** The records one fold needs: their keys, and where its templates live. */
export interface RecordRequest {
  readonly keys: RecordKeys;
  readonly templateRows: TemplateRows;
}

/**
 * Loads the records named by `keys` (those that exist; templates from
 * `templateRows`) as a published state: the selects of the three tables in
 * one round trip, each only for a non-empty set of keys (a live worker's
 * small batches often name no template, and a partition with no new event
 * names nothing).
 */
export const loadRecords = async (
  db: SqlQueryable,
  schema: SchemaName,
  keys: RecordKeys,
  templateRows: TemplateRows,
): Promise<ProjectionState> =>
  (await loadRecordsOfEach(db, schema, [{ keys, templateRows }]))[0] as ProjectionState;

/**
 * {@link loadRecords} for several folds at once (the partitions of a pass),
 * all of their selects in one round trip; their states in `requests`' order.
 */
export const loadRecordsOfEach = async (
  db: SqlQueryable,
  schema: SchemaName,
  requests: readonly RecordRequest[],
): Promise<ProjectionState[]> => {
  const selects: Sql[] = [];
  const slot = (ids: ReadonlySet<number>, select: (ids: number[]) => Sql): number | undefined => {
    if (ids.size === 0) return undefined;
    selects.push(select([...ids]));
    return selects.length - 1;
  };
  const slots = requests.map(({ keys, templateRows }) => ({
    templates: slot(keys.templates, (ids) => templateRows.selectSql(schema, ids)),
    signRequests: slot(
      keys.signRequests,
      (ids) => sql`${selectColumnsSql(SIGN_REQUESTS, schema)} WHERE id = ANY(${ids}::bigint[])`,
    ),
    participants: slot(
      keys.participantsOf,
      (ids) =>
        sql`${selectColumnsSql(PARTICIPANTS, schema)} WHERE sign_request_id = ANY(${ids}::bigint[])`,
    ),
  }));
  // Sent as one text, one round trip: the ids go in as literals.
  const results = selects.length === 0 ? [] : await querySeveral(db, selects.map(inlined));
  const views = <View>(spec: TableSpec<View>, i: number | undefined): View[] =>
    i === undefined ? [] : (results[i]?.rows ?? []).map((row) => viewOfRow(spec, row));
  return slots.map((at) =>
    toState(
      views(TEMPLATES, at.templates),
      views(SIGN_REQUESTS, at.signRequests),
      views(PARTICIPANTS, at.participants),
    ),
  );
};

/**
 * Every record of the tables as a {@link ProjectionState}, each collection in
 * first-seen order as a replay's, e.g. to compare the tables with an
 * in-memory fold or to export them. Participants are grouped by sign request
 * as a replay groups them: requests in the order their first participant was
 * created, then each request's participants in the order they were.
 */
export const readAllRecords = async (
  db: SqlQueryable,
  schema: SchemaName,
): Promise<ProjectionState> => {
  const first = sql.id(FIRST_POSITION);
  const order = sql`${first}, id`;
  const templates = await select(db, TEMPLATES, schema, order);
  const signRequests = await select(db, SIGN_REQUESTS, schema, order);
  const participants = await select(
    db,
    PARTICIPANTS,
    schema,
    sql`min(${first}) OVER (PARTITION BY sign_request_id), sign_request_id, ${first}, id`,
  );
  return toState(templates, signRequests, participants);
};

/** Records of `after` that are not the very objects `before` holds: new, or rewritten. */
export interface Changes<V> {
  readonly created: V[];
  /** The position each created record was first seen at (`first_position`), index for index. */
  readonly firstPositions: number[];
  readonly updated: V[];
}

/**
 * Reads and writes one partition's templates (partition-templates.ts has the
 * two kinds): declared here, where it is used, so that file can build on
 * {@link writeStatements} without the two importing each other.
 */
export interface TemplateRows {
  /** The `SELECT` of the templates of `ids`, every column of the templates table. */
  selectSql(schema: SchemaName, ids: readonly number[]): Sql;
  /** The statements that write `changes`. */
  writes(schema: SchemaName, changes: Changes<TemplateView>): Sql[];
}

const collect = <K, V>(
  before: ReadonlyMap<K, V> | undefined,
  after: ReadonlyMap<K, V>,
  into: Changes<V>,
  firstPosition: (key: K) => number,
): void => {
  for (const [key, record] of after) {
    const earlier = before?.get(key);
    if (earlier === record) continue;
    if (earlier === undefined) {
      into.created.push(record);
      into.firstPositions.push(firstPosition(key));
    } else into.updated.push(record);
  }
};

/** The statements that insert the created records and update the changed ones (none for no change). */
export const writeStatements = <View>(
  schema: SchemaName,
  spec: TableSpec<View>,
  changes: Changes<View>,
): Sql[] => [
  ...(changes.created.length === 0
    ? []
    : [insertSql(spec, schema, changes.created, changes.firstPositions)]),
  ...(changes.updated.length === 0 ? [] : [updateSql(spec, schema, changes.updated)]),
];

/**
 * The statements that write every record of `after` that is not the very
 * object `before` holds: `before` must hold every existing record the batch
 * could touch (see {@link loadRecords}), so a record it lacks is new and is
 * inserted. The inserted and the updated records are distinct rows, so the
 * statements can be sent as one ({@link withWrites}). A created record
 * `firstSeen` did not note (an upcaster renamed its ids) is given `fallback`,
 * the batch's last position: late, never early.
 */
export const changeStatements = (
  schema: SchemaName,
  before: ProjectionState,
  after: ProjectionState,
  templateRows: TemplateRows,
  firstSeen: FirstSeen,
  fallback: number,
): Sql[] => {
  const templates: Changes<TemplateView> = { created: [], firstPositions: [], updated: [] };
  const signRequests: Changes<SignRequestView> = { created: [], firstPositions: [], updated: [] };
  const participants: Changes<ParticipantView> = { created: [], firstPositions: [], updated: [] };
  collect(before.templates, after.templates, templates, (id) => {
    return firstSeen.templates.get(id) ?? fallback;
  });
  collect(before.signRequests, after.signRequests, signRequests, (id) => {
    return firstSeen.signRequests.get(id) ?? fallback;
  });
  for (const [requestId, ofRequest] of after.participants) {
    const earlier = before.participants.get(requestId);
    if (earlier === ofRequest) continue;
    collect(earlier, ofRequest, participants, (id) => {
      return firstSeen.participants.get(participantKey(requestId, id)) ?? fallback;
    });
  }
  return [
    ...templateRows.writes(schema, templates),
    ...writeStatements(schema, SIGN_REQUESTS, signRequests),
    ...writeStatements(schema, PARTICIPANTS, participants),
  ];
};
