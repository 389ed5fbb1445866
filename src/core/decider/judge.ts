import { err, ok, type Result } from 'neverthrow';
import type { SignEvent } from '../events/sign-event.js';
import { applyEvent } from '../projections/dispatch.js';
import type { ProjectionState } from '../projections/projection-state.js';
import { WorkingCopy } from '../projections/working-copy.js';
import type { CommandType } from './command.js';
import { type Rejection, refusedBy } from './rejection.js';

/**
 * Judges a command's events by the fold's own rules: applies them, in order,
 * to a copy of `state` with the handlers `reduce` and `fold` use. The first
 * that conflicts refuses the command with that conflict; a first event that
 * changes nothing refuses it as `unchanged`. So the decider holds no status
 * rule of its own: what it may emit is what the fold applies.
 */
export const judge = (
  state: ProjectionState,
  command: CommandType,
  events: readonly SignEvent[],
): Result<readonly SignEvent[], Rejection> => {
  const copy = new WorkingCopy(state);
  for (const [index, event] of events.entries()) {
    const outcome = applyEvent(copy, event);
    if (typeof outcome === 'object') return err(refusedBy(outcome, command, events));
    if (outcome === 'no-op' && index === 0) {
      return err({
        kind: 'unchanged',
        command,
        message: `${command} refused: ${event.type} would change nothing`,
        events,
      });
    }
  }
  return ok(events);
};
