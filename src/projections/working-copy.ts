import { type Draft, freeze } from 'immer';
import type { ParticipantId, SignRequestId, TemplateId } from '../ids.js';
import type { ProjectionDraft, Recipe } from './projection-draft.js';
import type { ProjectionState } from './projection-state.js';
import type { ParticipantView, SignRequestView, TemplateView } from './records.js';

type Participants = Map<ParticipantId, ParticipantView>;

/**
 * A mutable working copy of a {@link ProjectionState}, for applying many
 * events at O(1) each. Collections and records are copied on first write and
 * then owned; `publish` freezes what is owned, once, and returns an immutable
 * state sharing every untouched record with the original.
 *
 * The same recipes run under immer's `produce` in `reduce`; this driver avoids
 * immer's per-call proxy cost and its whole-Map copy per event.
 */
export class WorkingCopy implements ProjectionDraft {
  #templates: Map<TemplateId, TemplateView>;
  #signRequests: Map<SignRequestId, SignRequestView>;
  #participants: Map<SignRequestId, Participants>;
  /** Collections and records this copy may mutate in place. */
  #owned = new Set<object>();
  /** Owned records not yet frozen; kept apart so settling never walks the collections. */
  #unsettled: object[] = [];

  constructor(base: ProjectionState) {
    this.#templates = base.templates as Map<TemplateId, TemplateView>;
    this.#signRequests = base.signRequests as Map<SignRequestId, SignRequestView>;
    this.#participants = base.participants as Map<SignRequestId, Participants>;
  }

  #own<T extends object>(value: T, copy: (v: T) => T): T {
    if (this.#owned.has(value)) return value;
    const mine = copy(value);
    this.#owned.add(mine);
    return mine;
  }

  #ownRecord<T extends object>(value: T): T {
    if (this.#owned.has(value)) return value;
    return this.#adopt({ ...value });
  }

  #adopt<T extends object>(record: T): T {
    this.#owned.add(record);
    this.#unsettled.push(record);
    return record;
  }

  #templatesForWrite(): Map<TemplateId, TemplateView> {
    this.#templates = this.#own(this.#templates, (m) => new Map(m));
    return this.#templates;
  }

  #signRequestsForWrite(): Map<SignRequestId, SignRequestView> {
    this.#signRequests = this.#own(this.#signRequests, (m) => new Map(m));
    return this.#signRequests;
  }

  #participantsForWrite(signRequestId: SignRequestId): Participants {
    this.#participants = this.#own(this.#participants, (m) => new Map(m));
    const current = this.#participants.get(signRequestId);
    if (current === undefined) {
      const created: Participants = new Map();
      this.#owned.add(created);
      this.#participants.set(signRequestId, created);
      return created;
    }
    const mine = this.#own(current, (m) => new Map(m));
    if (mine !== current) this.#participants.set(signRequestId, mine);
    return mine;
  }

  template(id: TemplateId): TemplateView | undefined {
    return this.#templates.get(id);
  }

  signRequest(id: SignRequestId): SignRequestView | undefined {
    return this.#signRequests.get(id);
  }

  participant(signRequestId: SignRequestId, id: ParticipantId): ParticipantView | undefined {
    return this.#participants.get(signRequestId)?.get(id);
  }

  addTemplate(record: TemplateView): void {
    this.#adopt(record);
    this.#templatesForWrite().set(record.id, record);
  }

  addSignRequest(record: SignRequestView): void {
    this.#adopt(record);
    this.#signRequestsForWrite().set(record.id, record);
  }

  addParticipant(record: ParticipantView): void {
    this.#adopt(record);
    this.#participantsForWrite(record.signRequestId).set(record.id, record);
  }

  updateTemplate(id: TemplateId, recipe: Recipe<TemplateView>): void {
    const current = this.#templates.get(id);
    if (current === undefined) return;
    const mine = this.#ownRecord(current);
    if (mine !== current) this.#templatesForWrite().set(id, mine);
    recipe(mine as Draft<TemplateView>);
  }

  updateSignRequest(id: SignRequestId, recipe: Recipe<SignRequestView>): void {
    const current = this.#signRequests.get(id);
    if (current === undefined) return;
    const mine = this.#ownRecord(current);
    if (mine !== current) this.#signRequestsForWrite().set(id, mine);
    recipe(mine as Draft<SignRequestView>);
  }

  updateParticipant(
    signRequestId: SignRequestId,
    id: ParticipantId,
    recipe: Recipe<ParticipantView>,
  ): void {
    const current = this.#participants.get(signRequestId)?.get(id);
    if (current === undefined) return;
    const mine = this.#ownRecord(current);
    if (mine !== current) this.#participantsForWrite(signRequestId).set(id, mine);
    recipe(mine as Draft<ParticipantView>);
  }

  /**
   * Freezes the records written so far, keeping the collections owned: records
   * handed out afterwards never change under their holder, and writing on
   * stays O(1). The engine settles after each live event and each batch.
   */
  settle(): void {
    for (const record of this.#unsettled) {
      freeze(record, true);
      this.#owned.delete(record);
    }
    this.#unsettled = [];
  }

  /**
   * The current state without freezing the collections: valid only until the
   * next write. For reads inside the engine; hand users {@link publish}.
   */
  view(): ProjectionState {
    return {
      templates: this.#templates,
      signRequests: this.#signRequests,
      participants: this.#participants,
    };
  }

  /**
   * Freezes everything this copy owns and returns the resulting immutable
   * state. The copy stays usable: later writes copy again on first touch.
   */
  publish(): ProjectionState {
    this.settle();
    // Shallowly: every record in them is frozen by now.
    for (const collection of this.#owned) freeze(collection);
    this.#owned.clear();
    return Object.freeze({
      templates: this.#templates,
      signRequests: this.#signRequests,
      participants: this.#participants,
    });
  }
}
