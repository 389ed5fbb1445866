/**
 * Schema version 3: positions an operator chose to skip (`signfold pg skip`,
 * `skipPosition`). Workers and readers read a skipped event as a bad line
 * (so it is quarantined, counted once and visible, never silently dropped);
 * the row stays when a partition is rebuilt, so a rebuild skips it again.
 */
import type { SchemaName } from '../schema-name.js';

/** Version 3 (see the file comment). */
export const version3 = (s: SchemaName): string => `
CREATE TABLE ${s}.skipped (
  position    bigint PRIMARY KEY,
  reason      text NOT NULL,
  skipped_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
`;
