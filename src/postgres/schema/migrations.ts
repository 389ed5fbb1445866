/**
 * The schema, as an ordered list of migrations: version N is reached by
 * running migrations 1..N in order, each once. Add a migration to change
 * the schema; never edit one that has shipped.
 */

import { reactorTablesSql } from '../reactors/migration-reactors.js';
import { reactorRedoSql } from '../reactors/migration-redo.js';
import type { SchemaName } from '../schema-name.js';
import { type Sql, sql } from '../sql/sql.js';
import { version7 } from './migration-erasure-key.js';
import { version6 } from './migration-erasures.js';
import { version8 } from './migration-first-seen.js';
import { version9 } from './migration-outcome-times.js';
import { type MigrationSettings, version2 } from './migration-partitions.js';
import { version3 } from './migration-skips.js';

/** The two keys of the transaction-level advisory lock that serializes appends to one schema's events. */
export const appendLockSql = (schema: SchemaName): string =>
  `pg_advisory_xact_lock(hashtext('signfold.append'), hashtext('${schema}'))`;

/**
 * The append lock of `schema` as an expression to `SELECT`, its schema a
 * parameter: the same lock as {@link appendLockSql}'s, which the append
 * trigger's body takes.
 */
export const appendLock = (schema: SchemaName): Sql =>
  sql`pg_advisory_xact_lock(hashtext('signfold.append'), hashtext(${schema}))`;

/** The channel `NOTIFY`'d when events are appended to a schema (payload: the schema name). */
export const APPEND_CHANNEL = 'signfold_events';

const version1 = (s: SchemaName): string => `
CREATE TABLE ${s}.events (
  position        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id     text UNIQUE,
  received_at     timestamptz,
  body            text NOT NULL,
  bad_line        text,
  event_type      text,
  company_id      bigint,
  template_id     bigint,
  sign_request_id bigint
);
CREATE INDEX events_sign_request ON ${s}.events (sign_request_id, position);
CREATE INDEX events_of_templates ON ${s}.events (position) WHERE event_type LIKE 'template-%';

-- Positions become visible in order: every insert statement first takes this
-- lock, held to commit, so no position commits before a smaller one.
CREATE FUNCTION ${s}.serialize_appends() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ${appendLockSql(s)};
  RETURN NULL;
END $$;
CREATE TRIGGER events_serialize_appends BEFORE INSERT ON ${s}.events
  FOR EACH STATEMENT EXECUTE FUNCTION ${s}.serialize_appends();

CREATE FUNCTION ${s}.notify_appends() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${APPEND_CHANNEL}', '${s}');
  RETURN NULL;
END $$;
CREATE TRIGGER events_notify_appends AFTER INSERT ON ${s}.events
  FOR EACH STATEMENT EXECUTE FUNCTION ${s}.notify_appends();

CREATE FUNCTION ${s}.refuse_rewrites() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'signfold: %.events is append-only (% refused)', '${s}', TG_OP;
END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ${s}.events
  FOR EACH STATEMENT EXECUTE FUNCTION ${s}.refuse_rewrites();

CREATE TABLE ${s}.templates (
  id          bigint PRIMARY KEY,
  company_id  bigint NOT NULL,
  name        text NOT NULL,
  owner_id    bigint NOT NULL,
  owner_name  text NOT NULL,
  status      text NOT NULL CHECK (status IN ('active', 'inactive', 'deleted'))
);
CREATE INDEX templates_company_status ON ${s}.templates (company_id, status);

CREATE TABLE ${s}.sign_requests (
  id             bigint PRIMARY KEY,
  company_id     bigint,
  name           text NOT NULL,
  status         text NOT NULL CHECK (status IN ('draft', 'sent', 'completed', 'declined')),
  deleted        boolean NOT NULL,
  owner_id       bigint,
  owner_name     text,
  sender_id      bigint,
  sender_name    text,
  template_id    bigint,
  template_name  text,
  form_type      text,
  saved_time     text,
  fields         text
);
CREATE INDEX sign_requests_company_status ON ${s}.sign_requests (company_id, status);
CREATE INDEX sign_requests_template ON ${s}.sign_requests (template_id);
CREATE INDEX sign_requests_sender ON ${s}.sign_requests (sender_id);

CREATE TABLE ${s}.participants (
  sign_request_id  bigint NOT NULL,
  id               bigint NOT NULL,
  company_id       bigint,
  name             text NOT NULL,
  status           text NOT NULL CHECK (status IN ('sent', 'viewed', 'signed', 'declined')),
  view_count       integer NOT NULL,
  download_count   integer NOT NULL,
  role_id          bigint,
  role_name        text,
  sequence         integer,
  email            text,
  PRIMARY KEY (sign_request_id, id)
);
CREATE INDEX participants_awaiting ON ${s}.participants (company_id, sign_request_id)
  WHERE status IN ('sent', 'viewed');

CREATE TABLE ${s}.quarantine (
  position  bigint PRIMARY KEY,
  line      bigint,
  reason    text NOT NULL CHECK (reason IN ('bad-line', 'invalid-event', 'conflict')),
  message   text NOT NULL,
  raw       text NOT NULL,
  detail    text
);

CREATE TABLE ${s}.checkpoints (
  projection       text PRIMARY KEY,
  position         bigint NOT NULL,
  applied          bigint NOT NULL,
  no_ops           bigint NOT NULL,
  conflicts        bigint NOT NULL,
  invalid          bigint NOT NULL,
  already_applied  bigint NOT NULL,
  updated_at       timestamptz NOT NULL
);
`;

/** Version 4 (issue 17): the views' times and the tables of reactors. */
const version4 = (s: SchemaName): string => reactorTablesSql(s);

/** Version 5 (issue 32): what reactors react to again after `pg rebuild --switch`. */
const version5 = (s: SchemaName): string => reactorRedoSql(s);

/** Migration N is at index N - 1. */
export const MIGRATIONS: readonly ((schema: SchemaName, settings: MigrationSettings) => string)[] =
  [version1, version2, version3, version4, version5, version6, version7, version8, version9];

/** The schema version this code reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;
