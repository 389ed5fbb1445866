import { type Draft, freeze } from 'immer';
import type { ParticipantId, SignRequestId, TemplateId } from '../ids.js';
import type { ProjectionDraft, Recipe } from './projection-draft.js';
import type { ProjectionState } from './projection-state.js';
import { isPublished, markPublished } from './published-states.js';
import type { ParticipantView, SignRequestView, TemplateView } from './records.js';
import type { WriteWatcher } from './write-watcher.js';

type Participants = Map<ParticipantId, ParticipantView>;

/**
 * A mutable working copy of a {@link ProjectionState}, for applying many
 * events at O(1) each. The same immer-style recipes run here as under
 * `produce` in `reduce`, without immer's per-call proxies or its whole-Map
 * copy per event.
 *
 * Ownership is frozenness: every published state is deeply frozen, so a
 * collection or record that is not frozen was made by this copy and may be
 * mutated in place; a frozen one is copied on first write. `publish` freezes
 * what this copy made, once, sharing every untouched record with the base.
 */
export class WorkingCopy implements ProjectionDraft {
  #templates: Map<TemplateId, TemplateView>;
  #signRequests: Map<SignRequestId, SignRequestView>;
  #participants: Map<SignRequestId, Participants>;
  /** Collections made here, to freeze at publish. */
  #collections: Map<unknown, unknown>[] = [];
  /** Records made here, to freeze at publish (some may be frozen already: see `reveal`). */
  #records: object[] = [];
  /** Records frozen by `reveal` since the list was last compacted. */
  #revealed = 0;
  /** Set by `watch` while one event is applied for a reactor. */
  #watched: WriteWatcher | undefined;

  constructor(base: ProjectionState) {
    if (isPublished(base)) {
      this.#templates = base.templates as Map<TemplateId, TemplateView>;
      this.#signRequests = base.signRequests as Map<SignRequestId, SignRequestView>;
      this.#participants = base.participants as Map<SignRequestId, Participants>;
      return;
    }
    // Built by hand or deserialised: its parts may be mutable and shared with
    // the caller, so take a copy of everything once (O(records)) and own it.
    this.#templates = this.#adopt(base.templates);
    this.#signRequests = this.#adopt(base.signRequests);
    this.#participants = new Map();
    this.#collections.push(this.#participants);
    for (const [id, ofRequest] of base.participants) {
      this.#participants.set(id, this.#adopt(ofRequest));
    }
  }

  #adopt<K, V extends object>(source: ReadonlyMap<K, V>): Map<K, V> {
    const mine = new Map<K, V>();
    for (const [key, record] of source) {
      const copy = { ...record } as Record<string, unknown>;
      // The only nested value a record holds; copy it so publishing never freezes the caller's.
      if (Array.isArray(copy.fields)) copy.fields = freeze(structuredClone(copy.fields), true);
      mine.set(key, this.#made(copy as V));
    }
    this.#collections.push(mine);
    return mine;
  }

  #writable<K, V>(map: Map<K, V>): Map<K, V> {
    if (!Object.isFrozen(map)) return map;
    const mine = new Map(map);
    this.#collections.push(mine);
    return mine;
  }

  #made<T extends object>(record: T): T {
    // A live projector reveals and rewrites records forever: drop the frozen
    // ones once they are half the list, so it stays O(records), amortized O(1).
    if (this.#revealed > 1024 && this.#revealed * 2 > this.#records.length) {
      this.#records = this.#records.filter((r) => !Object.isFrozen(r));
      this.#revealed = 0;
    }
    this.#records.push(record);
    return record;
  }

  #participantsForWrite(signRequestId: SignRequestId): Participants {
    this.#participants = this.#writable(this.#participants);
    const current = this.#participants.get(signRequestId);
    const mine: Participants = current === undefined ? new Map() : this.#writable(current);
    if (current === undefined) this.#collections.push(mine);
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
    // The record it replaces, if any, is never written again: it is its own pre-image.
    this.#watched?.keepTemplate(record.id, this.#templates.get(record.id), false);
    this.#templates = this.#writable(this.#templates);
    this.#templates.set(record.id, this.#made(record));
  }

  addSignRequest(record: SignRequestView): void {
    this.#watched?.keepSignRequest(record.id, this.#signRequests.get(record.id), false);
    this.#signRequests = this.#writable(this.#signRequests);
    this.#signRequests.set(record.id, this.#made(record));
  }

  addParticipant(record: ParticipantView): void {
    // Optional chaining skips the arguments too: a plain replay reads nothing here.
    this.#watched?.keepParticipant(
      record.signRequestId,
      record.id,
      this.participant(record.signRequestId, record.id),
      false,
    );
    this.#participantsForWrite(record.signRequestId).set(record.id, this.#made(record));
  }

  updateTemplate(id: TemplateId, recipe: Recipe<TemplateView>): void {
    let record = this.#templates.get(id);
    if (record === undefined) return;
    const frozen = Object.isFrozen(record);
    this.#watched?.keepTemplate(id, record, !frozen);
    if (frozen) {
      record = this.#made({ ...record });
      this.#templates = this.#writable(this.#templates);
      this.#templates.set(id, record);
    }
    recipe(record as Draft<TemplateView>);
  }

  updateSignRequest(id: SignRequestId, recipe: Recipe<SignRequestView>): void {
    const record = this.writableSignRequest(id);
    if (record !== undefined) recipe(record);
  }

  writableSignRequest(id: SignRequestId): Draft<SignRequestView> | undefined {
    let record = this.#signRequests.get(id);
    if (record === undefined) return undefined;
    const frozen = Object.isFrozen(record);
    this.#watched?.keepSignRequest(id, record, !frozen);
    if (frozen) {
      record = this.#made({ ...record });
      this.#signRequests = this.#writable(this.#signRequests);
      this.#signRequests.set(id, record);
    }
    return record as Draft<SignRequestView>;
  }

  updateParticipant(
    signRequestId: SignRequestId,
    id: ParticipantId,
    recipe: Recipe<ParticipantView>,
  ): void {
    const record = this.writableParticipant(signRequestId, id);
    if (record !== undefined) recipe(record);
  }

  writableParticipant(
    signRequestId: SignRequestId,
    id: ParticipantId,
  ): Draft<ParticipantView> | undefined {
    let record = this.#participants.get(signRequestId)?.get(id);
    if (record === undefined) return undefined;
    const frozen = Object.isFrozen(record);
    this.#watched?.keepParticipant(signRequestId, id, record, !frozen);
    if (frozen) {
      record = this.#made({ ...record });
      this.#participantsForWrite(signRequestId).set(id, record);
    }
    return record as Draft<ParticipantView>;
  }

  /**
   * Until called again, tells `keeper` about each record just before it is
   * written (see `WriteWatcher`); `undefined` stops watching.
   */
  watch(keeper: WriteWatcher | undefined): void {
    this.#watched = keeper;
  }

  /**
   * Freezes a record before it leaves the engine, so it never changes under
   * its holder; a later write copies it. O(1).
   */
  reveal<T extends object | undefined>(record: T): T {
    if (record === undefined || Object.isFrozen(record)) return record;
    this.#revealed += 1;
    return Object.freeze(record);
  }

  /**
   * Runs `read` on the current records without publishing them: nothing is
   * frozen, so it costs nothing up front, but what `read` sees is this copy's
   * own mutable data. `read` must neither change it nor keep any of it.
   */
  peek<T>(read: (state: ProjectionState) => T): T {
    return read({
      templates: this.#templates,
      signRequests: this.#signRequests,
      participants: this.#participants,
    });
  }

  /**
   * Freezes everything this copy made and returns the resulting immutable
   * state. The copy stays usable: later writes copy again on first touch.
   * Records hold primitives only (loaded `fields` are frozen when loaded), so
   * a shallow freeze is deep.
   */
  publish(): ProjectionState {
    for (const record of this.#records) Object.freeze(record);
    // immer's freeze also disables set/delete/clear on a Map.
    for (const collection of this.#collections) freeze(collection);
    this.#records = [];
    this.#collections = [];
    this.#revealed = 0;
    return markPublished(
      Object.freeze({
        templates: this.#templates,
        signRequests: this.#signRequests,
        participants: this.#participants,
      }),
    );
  }
}
