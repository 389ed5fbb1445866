/**
 * `thenEffects`: what a reactor's `react` returns for the event under test,
 * compared deep-equal with what the test expects. The change is built the way
 * the engine builds it (same touched views), so a reactor tested here reacts
 * the same under `signfold react` or `pg work --reactors`.
 */
import { AssertionError, deepStrictEqual } from 'node:assert';
import { touchedViewsOf } from '../engine/applied-change.js';
import type { SignEvent } from '../events/sign-event.js';
import type { ProjectionState } from '../projections/projection-state.js';
import { WorkingCopy } from '../projections/working-copy.js';
import { defineReactor } from '../reactors/define-reactor.js';
import type { Change, Reactor, ReactorDefinition } from '../reactors/reactor-types.js';
import { show } from './describe-events.js';

/** What `when` may say about the event under test, besides the event. */
export interface WhenOptions {
  /** When it was received (ISO 8601); absent = a bare line. */
  readonly receivedAt?: string;
  /** The delivery id it was stored under. */
  readonly deliveryId?: string;
}

/** The change `react` sees for an applied event, from the states around it. */
export const changeBetween = (
  before: ProjectionState,
  after: ProjectionState,
  event: SignEvent,
  position: number,
  options: WhenOptions,
): Change => ({
  event,
  position,
  receivedAt: options.receivedAt,
  deliveryId: options.deliveryId,
  before: touchedViewsOf(new WorkingCopy(before), event),
  after: touchedViewsOf(new WorkingCopy(after), event),
});

/**
 * Fails (an `AssertionError` with `actual`/`expected`, so runners show a
 * diff) unless `react` returns exactly `expected`. `change` is `undefined`
 * when the event did not apply: `react` is never called then, so the
 * effects are `[]`.
 */
export const checkEffects = (
  reactorOrDefinition: Reactor | ReactorDefinition,
  change: Change | undefined,
  expected: readonly unknown[],
  story: () => string,
): void => {
  // A reactor is a definition too: checking it again is cheap and needs no guess at which it is.
  const reactor = defineReactor(reactorOrDefinition);
  let actual: unknown;
  try {
    actual = change === undefined ? [] : reactor.react(change);
  } catch (thrown) {
    throw new AssertionError({
      message: `reactor "${reactor.name}": react threw ${String(thrown)}\n${story()}`,
      operator: 'signfold/testing',
    });
  }
  try {
    deepStrictEqual(actual, expected);
  } catch {
    throw new AssertionError({
      message:
        `reactor "${reactor.name}" returned other effects${change === undefined ? ' (the event did not apply, so react was not called)' : ''}\n` +
        `expected: ${show(expected)}\nactual:   ${show(actual)}\n${story()}`,
      actual,
      expected,
      operator: 'signfold/testing',
    });
  }
};
