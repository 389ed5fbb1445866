/**
 * The read side of a projector's working copy: the state, published or
 * peeked at, and the O(1) lookups of one record. They live with the state
 * they read; the projector's own methods of the same names hand over to them.
 */
import type { ParticipantId, SignRequestId, TemplateId } from '../core/ids.js';
import type { ProjectionState } from '../core/projections/projection-state.js';
import type {
  ParticipantView,
  SignRequestView,
  TemplateView,
} from '../core/projections/records.js';
import type { WorkingCopy } from '../core/projections/working-copy.js';

/** Reads a working copy; each record returned is frozen first, so it never changes under its holder. */
export class ProjectionViews {
  readonly #copy: WorkingCopy;

  constructor(copy: WorkingCopy) {
    this.#copy = copy;
  }

  /** The immutable state (see `Projector.state` for its cost). */
  state(): ProjectionState {
    return this.#copy.publish();
  }

  /** Runs `read` on the current records, unpublished (see `Projector.peekState`). */
  peek<T>(read: (state: ProjectionState) => T): T {
    return this.#copy.peek(read);
  }

  /** The template with this id, or `undefined`. */
  template(id: number): TemplateView | undefined {
    return this.#copy.reveal(this.#copy.template(id as TemplateId));
  }

  /** The sign request with this id, or `undefined`. */
  signRequest(id: number): SignRequestView | undefined {
    return this.#copy.reveal(this.#copy.signRequest(id as SignRequestId));
  }

  /** A participant of a sign request, or `undefined`. */
  participant(signRequestId: number, id: number): ParticipantView | undefined {
    return this.#copy.reveal(
      this.#copy.participant(signRequestId as SignRequestId, id as ParticipantId),
    );
  }
}
