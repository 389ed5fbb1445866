import type { Draft } from 'immer';
import type { ParticipantId, SignRequestId, TemplateId } from '../ids.js';
import type { ProjectionDraft, Recipe } from './projection-draft.js';
import type { ProjectionState } from './projection-state.js';
import type { ParticipantView, SignRequestView, TemplateView } from './records.js';

/** Runs handler recipes on an immer draft of the whole state (used by `reduce`). */
export class ImmerDraft implements ProjectionDraft {
  readonly #draft: Draft<ProjectionState>;

  constructor(draft: Draft<ProjectionState>) {
    this.#draft = draft;
  }

  template(id: TemplateId): TemplateView | undefined {
    return this.#draft.templates.get(id);
  }

  signRequest(id: SignRequestId): SignRequestView | undefined {
    return this.#draft.signRequests.get(id);
  }

  participant(signRequestId: SignRequestId, id: ParticipantId): ParticipantView | undefined {
    return this.#draft.participants.get(signRequestId)?.get(id);
  }

  addTemplate(record: TemplateView): void {
    this.#draft.templates.set(record.id, record as Draft<TemplateView>);
  }

  addSignRequest(record: SignRequestView): void {
    this.#draft.signRequests.set(record.id, record as Draft<SignRequestView>);
  }

  addParticipant(record: ParticipantView): void {
    const ofRequest = this.#draft.participants.get(record.signRequestId);
    if (ofRequest === undefined) {
      this.#draft.participants.set(
        record.signRequestId,
        new Map([[record.id, record]]) as Draft<Map<ParticipantId, ParticipantView>>,
      );
    } else {
      ofRequest.set(record.id, record as Draft<ParticipantView>);
    }
  }

  updateTemplate(id: TemplateId, recipe: Recipe<TemplateView>): void {
    const draft = this.#draft.templates.get(id);
    if (draft !== undefined) recipe(draft);
  }

  updateSignRequest(id: SignRequestId, recipe: Recipe<SignRequestView>): void {
    const draft = this.#draft.signRequests.get(id);
    if (draft !== undefined) recipe(draft);
  }

  writableSignRequest(id: SignRequestId): Draft<SignRequestView> | undefined {
    return this.#draft.signRequests.get(id);
  }

  writableParticipant(
    signRequestId: SignRequestId,
    id: ParticipantId,
  ): Draft<ParticipantView> | undefined {
    return this.#draft.participants.get(signRequestId)?.get(id);
  }

  updateParticipant(
    signRequestId: SignRequestId,
    id: ParticipantId,
    recipe: Recipe<ParticipantView>,
  ): void {
    const draft = this.#draft.participants.get(signRequestId)?.get(id);
    if (draft !== undefined) recipe(draft);
  }
}
