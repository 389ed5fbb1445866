import type { Draft } from 'immer';
import type { ParticipantId, SignRequestId, TemplateId } from '../ids.js';
import type { ParticipantView, SignRequestView, TemplateView } from './records.js';

/** An immer-style recipe: plain mutations of a draft record. */
export type Recipe<T> = (draft: Draft<T>) => void;

/**
 * What an event handler may do to the projections. Handlers read first and
 * return a conflict before touching anything, then apply recipes; so a
 * conflicting event never changes state, whichever driver runs the recipes
 * (immer's `produce` in `reduce`, a copy-on-write working copy in `fold`).
 */
export interface ProjectionDraft {
  template(id: TemplateId): TemplateView | undefined;
  signRequest(id: SignRequestId): SignRequestView | undefined;
  participant(signRequestId: SignRequestId, id: ParticipantId): ParticipantView | undefined;
  addTemplate(record: TemplateView): void;
  addSignRequest(record: SignRequestView): void;
  addParticipant(record: ParticipantView): void;
  /** Applies a recipe to an existing template. */
  updateTemplate(id: TemplateId, recipe: Recipe<TemplateView>): void;
  updateSignRequest(id: SignRequestId, recipe: Recipe<SignRequestView>): void;
  updateParticipant(
    signRequestId: SignRequestId,
    id: ParticipantId,
    recipe: Recipe<ParticipantView>,
  ): void;
  /**
   * The existing sign request `id`, writable like a recipe's draft until the
   * next call on this draft (`updateSignRequest` without a closure: the
   * per-event paths write through it, allocating nothing).
   */
  writableSignRequest(id: SignRequestId): Draft<SignRequestView> | undefined;
  /** The existing participant, writable as {@link ProjectionDraft.writableSignRequest}. */
  writableParticipant(
    signRequestId: SignRequestId,
    id: ParticipantId,
  ): Draft<ParticipantView> | undefined;
}

/** What applying an event did, when it did not conflict. */
export type Outcome = 'applied' | 'no-op';
