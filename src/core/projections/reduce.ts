import { enableMapSet, produce } from 'immer';
import { err, ok, type Result } from 'neverthrow';
import type { DecodeError } from '../decode-error.js';
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
 * (`sentAt`, `viewedAt`, the outcome times, `lastEventAt`), as the engine stamps them. Runs the handler recipes under immer's `produce`, which copies each
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

/** A body {@link fold} was given as an `Err` of a decoder: skipped, with why. */
export interface RejectedBody {
  /** Its index in the input, the same count as a conflict's. */
  readonly index: number;
  readonly error: DecodeError;
}

/** The result of {@link fold}. */
export interface FoldResult {
  readonly state: ProjectionState;
  /**
   * Conflicting events, each with the index of its item in the input (the
   * body it came from, when the input is what a decoder returned); they
   * changed nothing.
   */
  readonly conflicts: readonly IndexedConflict[];
  /** The input's decoder errors, each with its index (see {@link fold}). */
  readonly rejected: readonly RejectedBody[];
  /** Whether any event changed the state (`false` when all were no-ops, conflicts or rejected). */
  readonly changed: boolean;
}

/** What a decoder returns, told apart from an event by duck typing (another copy of neverthrow works too). */
const isDecoded = (
  item: SignEvent | Result<SignEvent, DecodeError>,
): item is Result<SignEvent, DecodeError> =>
  typeof (item as { readonly isOk?: unknown }).isOk === 'function';

/**
 * Applies events in order, skipping (and reporting) the conflicting ones.
 * Linear in the number of events, whatever the number of records: recipes run
 * on a copy-on-write working copy that is frozen once at the end. Equal to
 * reducing one event at a time. `receivedAt[i]`, when given, is the
 * `receivedAt` of the i-th item (see {@link reduce}).
 *
 * The items may be events, or what `decodeEvent` / `decodeEventJson` returned
 * for each body: an `Err` is skipped and reported in `rejected`, so every
 * index, of a conflict or of a rejection, is the index of its body.
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
  events: Iterable<SignEvent | Result<SignEvent, DecodeError>>,
  receivedAt: readonly (string | undefined)[] = [],
): FoldResult => {
  const copy = new WorkingCopy(state);
  const conflicts: IndexedConflict[] = [];
  const rejected: RejectedBody[] = [];
  let changed = false;
  let index = 0;
  for (const item of events) {
    let event: SignEvent;
    if (isDecoded(item)) {
      if (item.isErr()) {
        rejected.push({ index, error: item.error });
        index += 1;
        continue;
      }
      event = item.value;
    } else event = item;
    const outcome = applyEvent(copy, event, receivedAt[index]);
    if (typeof outcome === 'object') conflicts.push({ ...outcome, index });
    else if (outcome === 'applied') changed = true;
    index += 1;
  }
  // Nothing applied: the same state, so `next === state` agrees with `changed`.
  return { state: changed ? copy.publish() : state, conflicts, rejected, changed };
};
