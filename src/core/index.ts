/**
 * `signfold/core`: the pure core, for code that runs without Node (a web page,
 * an edge function, a worker). Decoders and encoders, the ids, the
 * projections with `reduce`, `fold`, their queries and reconciliation, and the
 * event builders. Nothing it loads imports a `node:` module or does I/O, so it
 * bundles for a browser as is; the engine, the event logs and the CLI are in
 * `signfold`. Every export here is also an export of `signfold` (the builders
 * of `signfold/testing`), so code moves between the two without renaming:
 * both re-export `domain.ts`, which lists the pure domain once.
 *
 * @packageDocumentation
 */

export type {
  BuildEvent,
  Builder,
  EventBuilders,
  EventOverrides,
  PlainValue,
} from './builders/event-builders.js';
export { EVENT_DEFAULTS } from './builders/event-builders.js';
export { buildEvent, events } from './builders/plain-builders.js';
export * from './domain.js';
