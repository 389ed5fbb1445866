/**
 * Migration 4 (issue 17): the views' times (`sent_at`, `viewed_at`,
 * `last_event_at`) and the tables of reactors. `effects` holds every effect a
 * reactor planned, enqueued in the transaction of the partition batch that
 * reacted (so exactly once), with the state machine of `ReactorEffects`; times are
 * milliseconds since the epoch (`bigint`), exactly what the core computes.
 * `effect` is `json`, not `jsonb`: it keeps the text `react` returned, key
 * order included. `reactor_progress` is each reactor's own checkpoint and
 * watermark per partition, apart from the projection's: a rebuild of the
 * projection never runs an effect again.
 */
import type { SchemaName } from '../schema-name.js';

/** The channel `NOTIFY`'d when effects become ready (payload: the schema name). */
export const EFFECTS_CHANNEL = 'signfold_effects';

/** The SQL of migration 4 for schema `s`. */
export const reactorTablesSql = (s: SchemaName): string => `
-- Since when: the receivedAt of the events that moved each view (NULL for bare lines).
ALTER TABLE ${s}.sign_requests ADD COLUMN sent_at timestamptz, ADD COLUMN last_event_at timestamptz;
ALTER TABLE ${s}.participants ADD COLUMN sent_at timestamptz, ADD COLUMN viewed_at timestamptz,
  ADD COLUMN last_event_at timestamptz;
CREATE INDEX participants_id ON ${s}.participants (id);
CREATE INDEX participants_awaiting_since ON ${s}.participants (sent_at)
  WHERE status IN ('sent', 'viewed');

CREATE TABLE ${s}.reactor_progress (
  reactor       text NOT NULL,
  partition     integer NOT NULL,
  position      bigint NOT NULL,
  watermark_ms  bigint,
  updated_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (reactor, partition)
);

CREATE TABLE ${s}.effects (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  reactor          text NOT NULL,
  partition        integer NOT NULL,
  position         bigint NOT NULL,
  index            integer NOT NULL,
  idempotency_key  text NOT NULL UNIQUE,
  key              text,
  effect           json,
  state            text NOT NULL
                   CHECK (state IN ('scheduled', 'ready', 'retrying', 'done', 'parked', 'cancelled')),
  due_ms           bigint,
  attempts         integer NOT NULL DEFAULT 0,
  last_error       text NOT NULL DEFAULT '',
  invalid          boolean NOT NULL DEFAULT false,
  lease_owner      text,
  lease_until      timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX effects_runnable ON ${s}.effects (coalesce(due_ms, -1), id)
  WHERE state IN ('ready', 'retrying');
CREATE INDEX effects_scheduled ON ${s}.effects (reactor, partition, due_ms)
  WHERE state = 'scheduled';
CREATE INDEX effects_parked ON ${s}.effects (reactor) WHERE state = 'parked';
`;
