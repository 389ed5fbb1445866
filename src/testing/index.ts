/**
 * `signfold/testing`: given/when/then specifications and event builders for
 * tests of code built on signfold's projections. Framework-agnostic: failures
 * are `AssertionError`s from `node:assert` (vitest, jest and `node:test` all
 * report them). See `docs/testing.md`.
 *
 * @packageDocumentation
 */

export type { EventOverrides, PlainValue } from './event-builders.js';
export { buildEvent, EVENT_DEFAULTS, events } from './event-builders.js';
export type {
  EventInput,
  ExpectedConflict,
  ExpectedParticipant,
  ExpectedSignRequest,
  ExpectedTemplate,
  Given,
  StateChecks,
  When,
} from './specification.js';
export { given } from './specification.js';
