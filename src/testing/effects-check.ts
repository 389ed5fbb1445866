/**
 * `thenEffects`: what a reactor's `react` returns for the event under test,
 * compared deep-equal with what the test expects. `react` is called from a
 * projector's `onApplied`, as the engines call it, so a reactor tested here
 * reacts the same under `signfold react` or `pg work --reactors`, views and
 * their rules included.
 */
import { AssertionError, deepStrictEqual } from 'node:assert';
import type { SignEvent } from '../core/events/sign-event.js';
import type { ProjectionState } from '../core/projections/projection-state.js';
import { defineReactor } from '../core/reactors/define-reactor.js';
import type { Change, Reactor, ReactorDefinition } from '../core/reactors/reactor-types.js';
import { createProjector } from '../engine/projector.js';
import { show } from './describe-events.js';

/** What `when` may say about the event under test, besides the event. */
export interface WhenOptions {
  /** When it was received (ISO 8601); absent = a bare line. */
  readonly receivedAt?: string;
  /** The delivery id it was stored under. */
  readonly deliveryId?: string;
}

/** What `react` did for the event under test. */
export type Reaction =
  | { readonly kind: 'returned'; readonly effects: unknown }
  | { readonly kind: 'threw'; readonly thrown: unknown };

/**
 * Calls `reactor.react` for `event` (or an observation record: then for each
 * event its repair stands for, their effects one after another) applied to
 * `before` at `position` the way the engines do, from a projector's `onApplied`: the change is the
 * engine's own, its views made when first read and no more once `react` has
 * returned. `undefined` when the event does not apply (`react` is never
 * called then).
 */
export const reactionTo = (
  reactor: Reactor,
  before: ProjectionState,
  event: SignEvent | Readonly<Record<string, unknown>>,
  position: number,
  options: WhenOptions,
): Reaction | undefined => {
  let reaction: Reaction | undefined;
  // A repair stands for several events: what react returned for each, in order, one after another.
  const onApplied = (change: Change): void => {
    if (reaction?.kind === 'threw') return;
    try {
      const effects: unknown = reactor.react(change);
      const soFar = reaction?.effects;
      reaction = {
        kind: 'returned',
        effects: Array.isArray(soFar) && Array.isArray(effects) ? [...soFar, ...effects] : effects,
      };
    } catch (thrown) {
      reaction = { kind: 'threw', thrown };
    }
  };
  const projector = createProjector(
    { audit: false, onApplied },
    { state: before, checkpoint: position - 1 },
  );
  projector.apply({
    position,
    event,
    ...(options.receivedAt === undefined ? {} : { receivedAt: options.receivedAt }),
    ...(options.deliveryId === undefined ? {} : { deliveryId: options.deliveryId }),
  });
  return reaction;
};

/**
 * Fails (an `AssertionError` with `actual`/`expected`, so runners show a
 * diff) unless `react` returns exactly `expected` when `react` runs it (see
 * {@link reactionTo}). When the event did not apply `react` is never
 * called, so the effects are `[]`.
 */
export const checkEffects = (
  reactorOrDefinition: Reactor | ReactorDefinition,
  react: (reactor: Reactor) => Reaction | undefined,
  expected: readonly unknown[],
  story: () => string,
): void => {
  // A reactor is a definition too: checking it again is cheap and needs no guess at which it is.
  const reactor = defineReactor(reactorOrDefinition);
  const reaction = react(reactor);
  if (reaction?.kind === 'threw') {
    throw new AssertionError({
      message: `reactor "${reactor.name}": react threw ${String(reaction.thrown)}\n${story()}`,
      operator: 'signfold/testing',
    });
  }
  const actual = reaction === undefined ? [] : reaction.effects;
  try {
    deepStrictEqual(actual, expected);
  } catch {
    throw new AssertionError({
      message:
        `reactor "${reactor.name}" returned other effects${reaction === undefined ? ' (the event did not apply, so react was not called)' : ''}\n` +
        `expected: ${show(expected)}\nactual:   ${show(actual)}\n${story()}`,
      actual,
      expected,
      operator: 'signfold/testing',
    });
  }
};
