/**
 * The changes a repair hands to `onApplied`: one per event it stands for
 * (see `repairEvents`), at the observation's position. They step through the
 * states (see `repairSteps`): each change's `before` is the previous one's
 * `after`, so a transition (to completed, say) is seen once, on the event
 * that makes it. Unlike a delivered event's `AppliedChange`, their views are
 * copied up front: a repair writes several records at once, and repairs are
 * rare.
 */
import type { SignEvent } from '../core/events/sign-event.js';
import type { ParticipantId, SignRequestId } from '../core/ids.js';
import type { RequestImage } from '../core/observations/repair-events.js';
import { repairSteps } from '../core/observations/repair-steps.js';
import type { ProjectionState } from '../core/projections/projection-state.js';
import type { ParticipantView } from '../core/projections/records.js';
import type { WorkingCopy } from '../core/projections/working-copy.js';
import { keepable } from '../core/projections/write-watcher.js';
import type { Change, ObservedEvent, TouchedViews } from '../core/reactors/reactor-types.js';

/** A sign request and its participants as `copy` holds them now, copied so later writes leave them be. */
export const requestImageOf = (copy: WorkingCopy, id: SignRequestId): RequestImage => {
  const participants = copy.peek(
    (state) =>
      new Map(
        [...(state.participants.get(id)?.values() ?? [])].map(
          (p): [ParticipantId, ParticipantView] => [p.id, Object.freeze({ ...p })],
        ),
      ),
  );
  const request = keepable(copy.signRequest(id));
  return { signRequest: request && Object.freeze({ ...request }), participants };
};

const viewsOf = (image: RequestImage, event: SignEvent): TouchedViews => {
  const participant =
    'participantId' in event ? image.participants.get(event.participantId) : undefined;
  const { signRequest } = image;
  return Object.freeze({
    ...(signRequest === undefined ? {} : { signRequest }),
    ...(participant === undefined ? {} : { participant }),
  });
};

/** What a repair's changes share. */
export interface RepairContext {
  readonly position: number;
  readonly receivedAt: string | undefined;
  readonly fetchedAt: string;
  readonly differences: readonly string[];
  readonly before: RequestImage;
  readonly after: RequestImage;
  /** The projection after the repair, as far as the request goes (as `Change.state`). */
  readonly state: ProjectionState;
}

/** One change per event, in order, each with its `observation` place. */
export const repairChanges = (
  context: RepairContext,
  events: readonly SignEvent[],
): readonly Change[] => {
  const steps = repairSteps(context.before, context.after, events);
  return events.map((event, index): Change => {
    const observation: ObservedEvent = Object.freeze({
      fetchedAt: context.fetchedAt,
      differences: context.differences,
      index,
      count: events.length,
    });
    return Object.freeze({
      event,
      position: context.position,
      receivedAt: context.receivedAt,
      deliveryId: undefined,
      before: viewsOf(steps[index] as RequestImage, event),
      after: viewsOf(steps[index + 1] as RequestImage, event),
      state: context.state,
      observation,
    });
  });
};
