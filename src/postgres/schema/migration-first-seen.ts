/**
 * Schema version 8: `first_position` on templates, sign requests and
 * participants, the position of the event that created the record. A
 * replay lists records in the order it first saw them (its Maps keep
 * insertion order); partitioned workers insert rows in no such order, so
 * the tables keep the position instead and `readProjections` (hence
 * `pg export`) orders by it: its arrays then equal `replay --json`'s.
 *
 * Rows projected before this version get the position of the first stored
 * event that names them and was not quarantined (a participant: that of its
 * sign request), close to the truth and exact for logs where the first event
 * naming a record creates it; `pg rebuild --switch` makes it exact.
 */
import type { SchemaName } from '../schema-name.js';

/** The column, on each table of records. */
export const FIRST_POSITION = 'first_position';

/** Version 8 (see the file comment). */
export const version8 = (s: SchemaName): string => `
ALTER TABLE ${s}.templates ADD COLUMN ${FIRST_POSITION} bigint;
ALTER TABLE ${s}.partition_templates ADD COLUMN ${FIRST_POSITION} bigint;
ALTER TABLE ${s}.sign_requests ADD COLUMN ${FIRST_POSITION} bigint;
ALTER TABLE ${s}.participants ADD COLUMN ${FIRST_POSITION} bigint;
UPDATE ${s}.templates AS t SET ${FIRST_POSITION} = (
  SELECT min(e.position) FROM ${s}.events AS e
   WHERE e.template_id = t.id AND e.event_type LIKE 'template-%'
     AND NOT EXISTS (SELECT 1 FROM ${s}.quarantine AS q WHERE q.position = e.position));
UPDATE ${s}.sign_requests AS r SET ${FIRST_POSITION} = (
  SELECT min(e.position) FROM ${s}.events AS e
   WHERE e.sign_request_id = r.id
     AND NOT EXISTS (SELECT 1 FROM ${s}.quarantine AS q WHERE q.position = e.position));
UPDATE ${s}.participants AS p SET ${FIRST_POSITION} = (
  SELECT min(e.position) FROM ${s}.events AS e
   WHERE e.sign_request_id = p.sign_request_id
     AND NOT EXISTS (SELECT 1 FROM ${s}.quarantine AS q WHERE q.position = e.position));
`;
