import { enableMapSet, produce } from 'immer';
import { err, ok, type Result } from 'neverthrow';
import type { SignEvent } from '../events/sign-event.js';
import type { Conflict, IndexedConflict } from './conflict.js';
import { applyEvent } from './dispatch.js';
import { ImmerDraft } from './immer-draft.js';
import type { ProjectionState } from './projection-state.js';
import { isPublished, markPublished } from './published-states.js';
import { WorkingCopy } from './working-copy.js';

enableMapSet();

/**
 * Applies one event: the next state, or the conflict (the given state is never
 * changed). With `receivedAt` (ISO 8601) the views it moves get their times
 * (`sentAt`, `viewedAt`, `lastEventAt`), as the engine stamps them. Runs the handler recipes under immer's `produce`, which copies each
 * collection it writes to: O(records) per call. To apply many events use
 * {@link fold}, which is O(1) per event and gives the same result.
 *
 * @example
 * ```ts
 * import { getTemplate, initialState, reduce } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const next = reduce(initialState(), events.templateActivated({ templateId: 7 }));
 * console.log(next.map((state) => getTemplate(state, 7)?.status).unwrapOr('conflict')); // active
 * ```
 */
export const reduce = (
  state: ProjectionState,
  event: SignEvent,
  receivedAt?: string,
): Result<ProjectionState, Conflict> => {
  let outcome: ReturnType<typeof applyEvent> = 'no-op';
  const next = produce(state, (draft) => {
    outcome = applyEvent(new ImmerDraft(draft), event, receivedAt);
  });
  if (typeof outcome === 'object') return err(outcome);
  // immer froze what it made; untouched parts are the base's, frozen only if the base was ours.
  return ok(isPublished(state) ? markPublished(next) : next);
};

/** The result of {@link fold}. */
export interface FoldResult {
  readonly state: ProjectionState;
  /** Conflicting events, each with the index of its event in the input; they changed nothing. */
  readonly conflicts: readonly IndexedConflict[];
}

/**
 * Applies events in order, skipping (and reporting) the conflicting ones.
 * Linear in the number of events, whatever the number of records: recipes run
 * on a copy-on-write working copy that is frozen once at the end. Equal to
 * reducing one event at a time. `receivedAt[i]`, when given, is the
 * `receivedAt` of the i-th event (see {@link reduce}).
 *
 * @example
 * ```ts
 * import { fold, initialState } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state, conflicts } = fold(initialState(), [
 *   events.signRequestSent(),
 *   events.signRequestDeclined(),
 *   events.signRequestCompleted(), // contradicts the decline: reported, not applied
 * ]);
 * console.log(state.signRequests.size, conflicts.map((c) => `${c.index}: ${c.kind}`)); // 1 [ '2: invalid-transition' ]
 * ```
 */
export const fold = (
  state: ProjectionState,
  events: Iterable<SignEvent>,
  receivedAt: readonly (string | undefined)[] = [],
): FoldResult => {
  const copy = new WorkingCopy(state);
  const conflicts: IndexedConflict[] = [];
  let index = 0;
  for (const event of events) {
    const outcome = applyEvent(copy, event, receivedAt[index]);
    if (typeof outcome === 'object') conflicts.push({ ...outcome, index });
    index += 1;
  }
  return { state: copy.publish(), conflicts };
};
