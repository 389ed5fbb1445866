/**
 * `signfold/testing`: given/when/then specifications and event builders for
 * tests of code built on signfold's projections. Framework-agnostic: failures
 * are `AssertionError`s from `node:assert` (vitest, jest and `node:test` all
 * report them). See `docs/testing.md`.
 *
 * @packageDocumentation
 */

export type {
  BuildEvent,
  Builder,
  EventBuilders,
  EventOverrides,
  PlainValue,
} from '../core/builders/event-builders.js';
export { EVENT_DEFAULTS } from '../core/builders/event-builders.js';
export { buildEvent, events } from './assert-builders.js';
export type { Decided, ExpectedRejection } from './decider-specification.js';
export type { WhenOptions } from './effects-check.js';
export type { ObservationOverrides } from './observation-builder.js';
export { observation } from './observation-builder.js';
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
