/**
 * `signfold/reactors`: the kit for writing reactors, the code that acts on
 * what the projections became (an email when a request completes, a row in
 * another system when a participant declines). `defineReactor` checks a
 * definition; the types say what a reactor is given and returns. A reactor
 * is pure: the runners do the I/O, `createFileReactorRunner` in
 * `signfold/file` and the PostgreSQL workers in `signfold/postgres`.
 *
 * @packageDocumentation
 */

export type { AttemptObserver, AttemptResult } from './attempt-result.js';
export { DEFAULT_RETRY, defineReactor } from './define-reactor.js';
export type { EffectsChange, EffectsReport } from './effects-report.js';
export type {
  CancelEffect,
  Change,
  Effect,
  EffectContext,
  JsonValue,
  MinimalAbortSignal,
  ObservedEvent,
  Reactor,
  ReactorDefinition,
  RetryPolicy,
  RuntimeAbortSignal,
  ShutdownSignal,
  SqlEffects,
  SqlStatement,
  TouchedViews,
  Upcast,
} from './reactor-types.js';
