/**
 * Schema version 2: partitioned projection workers. Events are split into a
 * fixed number of partitions by sign request id (chosen at migrate time and
 * baked into a generated column); template events belong to every partition.
 * Each partition has its own checkpoint, counters and lease (owner, epoch,
 * expiry), and its own copy of the templates, so that a partition folds the
 * template events in log order whatever the others are doing.
 */
import type { SchemaName } from '../schema-name.js';

/** What a migration may depend on besides the schema name. */
export interface MigrationSettings {
  /** The number of partitions (used only when version 2 is created). */
  readonly partitions: number;
}

/** The partition of template events: read by every partition. */
export const EVERY_PARTITION = -1;

/**
 * `partition_of_request(id)`: a multiplicative hash (Lehmer, modulo the prime
 * 2³¹ − 1) before the modulo, so ids allocated with a stride (1000, 2000, …)
 * still spread over the partitions. Immutable: a generated column uses it.
 */
const partitionFunctions = (s: SchemaName, partitions: number): string => `
CREATE FUNCTION ${s}.partition_of_request(sign_request_id bigint) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN ((mod(abs(sign_request_id), 2147483647) * 48271) % 2147483647 % ${partitions})::integer;
CREATE FUNCTION ${s}.partition_of_event(event_type text, sign_request_id bigint) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN event_type LIKE 'template-%' THEN ${EVERY_PARTITION}
              WHEN sign_request_id IS NULL THEN 0
              ELSE ${s}.partition_of_request(sign_request_id) END;
`;

/** Version 2 (see the file comment); carries a version 1 checkpoint over to every partition. */
export const version2 = (s: SchemaName, settings: MigrationSettings): string => `
CREATE TABLE ${s}.partition_count (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  partitions  integer NOT NULL CHECK (partitions BETWEEN 1 AND 1024)
);
INSERT INTO ${s}.partition_count (partitions) VALUES (${settings.partitions});
${partitionFunctions(s, settings.partitions)}
ALTER TABLE ${s}.events ADD COLUMN partition integer
  GENERATED ALWAYS AS (${s}.partition_of_event(event_type, sign_request_id)) STORED;
CREATE INDEX events_partition ON ${s}.events (partition, position);

CREATE TABLE ${s}.partitions (
  partition        integer PRIMARY KEY,
  position         bigint NOT NULL DEFAULT 0,
  applied          bigint NOT NULL DEFAULT 0,
  no_ops           bigint NOT NULL DEFAULT 0,
  conflicts        bigint NOT NULL DEFAULT 0,
  invalid          bigint NOT NULL DEFAULT 0,
  already_applied  bigint NOT NULL DEFAULT 0,
  updated_at       timestamptz,
  owner            text,
  epoch            bigint NOT NULL DEFAULT 0,
  lease_until      timestamptz,
  last_error       text,
  last_error_at    timestamptz
);
INSERT INTO ${s}.partitions (partition) SELECT generate_series(0, ${settings.partitions - 1});
UPDATE ${s}.partitions AS p SET position = c.position, updated_at = c.updated_at
  FROM ${s}.checkpoints AS c WHERE c.projection = 'signfold';
UPDATE ${s}.partitions AS p SET applied = c.applied, no_ops = c.no_ops, conflicts = c.conflicts,
       invalid = c.invalid, already_applied = c.already_applied
  FROM ${s}.checkpoints AS c WHERE c.projection = 'signfold' AND p.partition = 0;

CREATE TABLE ${s}.workers (
  id            text PRIMARY KEY,
  started_at    timestamptz NOT NULL,
  lease_until   timestamptz NOT NULL
);

-- Partition 0 keeps its templates in the templates table applications read;
-- the others keep private copies here.
CREATE TABLE ${s}.partition_templates (
  partition   integer NOT NULL,
  id          bigint NOT NULL,
  company_id  bigint NOT NULL,
  name        text NOT NULL,
  owner_id    bigint NOT NULL,
  owner_name  text NOT NULL,
  status      text NOT NULL,
  PRIMARY KEY (partition, id)
);
INSERT INTO ${s}.partition_templates
  SELECT p, t.id, t.company_id, t.name, t.owner_id, t.owner_name, t.status
    FROM ${s}.templates AS t, generate_series(1, ${settings.partitions - 1}) AS p;

DROP TABLE ${s}.checkpoints;
-- What version 1 called the checkpoint: everything up to position is projected.
CREATE VIEW ${s}.checkpoints AS
  SELECT 'signfold'::text AS projection, min(position) AS position, sum(applied)::bigint AS applied,
         sum(no_ops)::bigint AS no_ops, sum(conflicts)::bigint AS conflicts,
         sum(invalid)::bigint AS invalid, sum(already_applied)::bigint AS already_applied,
         max(updated_at) AS updated_at
    FROM ${s}.partitions;
`;
