/**
 * Migration 5 (issue 32): `reactor_redo`, the events a reactor must react to
 * once more because `pg rebuild --switch` applied them under new rules
 * (upcasters) where the old tables had quarantined them, at positions the
 * reactor had already passed. A worker with that reactor consumes the rows
 * (see reactor-catch-up.ts); the table is empty otherwise.
 */
import type { SchemaName } from '../schema-name.js';

/** The SQL of migration 5 for schema `s`. */
export const reactorRedoSql = (s: SchemaName): string => `
CREATE TABLE ${s}.reactor_redo (
  reactor    text NOT NULL,
  partition  integer NOT NULL,
  position   bigint NOT NULL,
  PRIMARY KEY (reactor, partition, position)
);
`;
