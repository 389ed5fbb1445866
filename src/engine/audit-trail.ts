import type { EventType } from '../core/events/event-members.js';
import type { SignEvent } from '../core/events/sign-event.js';
import type { ParticipantId, SignRequestId, TemplateId } from '../core/ids.js';
import type { ConflictKind } from '../core/projections/conflict.js';
import type { Outcome } from '../core/projections/projection-draft.js';

/** The `type` of an audit entry made by an observation record rather than an event. */
export const OBSERVATION_ENTRY = 'observation';

/** What snapshots written before 0.2 call an observation's entry; read as {@link OBSERVATION_ENTRY}. */
export const OLD_OBSERVATION_ENTRY = 'repair';

/**
 * One record in the history of a sign request or template: where it is in
 * the log and what it did. An event's entry has its `type`; an observation
 * record's has type `observation` and the `differences` it closed (none when it
 * found the projection right: outcome `no-op`).
 */
export interface AuditEntry {
  readonly position: number;
  readonly type: EventType | 'observation';
  /** For participant events: which participant. */
  readonly participantId: ParticipantId | undefined;
  readonly receivedAt: string | undefined;
  readonly outcome: Outcome | ConflictKind;
  /** For an observation: the differences with the service it closed, as `compareSignRequest` words them. */
  readonly differences?: readonly string[];
  /** Set when upcasters made the event from the stored record: their names, in the order they ran. */
  readonly upcastBy?: readonly string[];
}

/** The audit trails, as stored in snapshots. */
export interface AuditTrailData {
  readonly signRequests: ReadonlyArray<readonly [number, readonly AuditEntry[]]>;
  readonly templates: ReadonlyArray<readonly [number, readonly AuditEntry[]]>;
}

/** An entry as saved, with the older name of an observation's type read as today's. */
const restoredEntry = (entry: AuditEntry): AuditEntry =>
  Object.freeze(
    (entry.type as string) === OLD_OBSERVATION_ENTRY
      ? { ...entry, type: OBSERVATION_ENTRY }
      : { ...entry },
  );

/**
 * Per-record histories: for each sign request every event that touched it
 * (its participants' events included), and for each template its events. This
 * is the evidence behind each status. Memory: one small entry per event.
 */
export class AuditTrail {
  readonly #signRequests = new Map<SignRequestId, AuditEntry[]>();
  readonly #templates = new Map<TemplateId, AuditEntry[]>();

  /** Restores trails saved by {@link toData}. */
  static fromData(data: AuditTrailData): AuditTrail {
    const trail = new AuditTrail();
    for (const [id, entries] of data.signRequests) {
      trail.#signRequests.set(id as SignRequestId, entries.map(restoredEntry));
    }
    for (const [id, entries] of data.templates) {
      trail.#templates.set(id as TemplateId, entries.map(restoredEntry));
    }
    return trail;
  }

  /** Records what an event did to the records it names. */
  record(
    event: SignEvent,
    position: number,
    receivedAt: string | undefined,
    outcome: AuditEntry['outcome'],
    upcastBy?: readonly string[],
  ): void {
    const participantId = 'participantId' in event ? event.participantId : undefined;
    const entry: AuditEntry = Object.freeze(
      upcastBy === undefined
        ? { position, type: event.type, participantId, receivedAt, outcome }
        : {
            position,
            type: event.type,
            participantId,
            receivedAt,
            outcome,
            upcastBy: Object.freeze([...upcastBy]),
          },
    );
    if ('signRequestId' in event) {
      append(this.#signRequests, event.signRequestId, entry);
    } else {
      append(this.#templates, event.templateId, entry);
    }
  }

  /** Records what an observation record did to its sign request. */
  recordObservation(
    signRequestId: SignRequestId,
    position: number,
    receivedAt: string | undefined,
    outcome: AuditEntry['outcome'],
    differences: readonly string[],
  ): void {
    const entry: AuditEntry = Object.freeze({
      position,
      type: OBSERVATION_ENTRY,
      participantId: undefined,
      receivedAt,
      outcome,
      differences: Object.freeze([...differences]),
    });
    append(this.#signRequests, signRequestId, entry);
  }

  /** Every event that touched a sign request or its participants, in log order. */
  ofSignRequest(id: number): readonly AuditEntry[] {
    return [...(this.#signRequests.get(id as SignRequestId) ?? [])];
  }

  /** Every event about one participant of a sign request, in log order. */
  ofParticipant(signRequestId: number, id: number): readonly AuditEntry[] {
    return (this.#signRequests.get(signRequestId as SignRequestId) ?? []).filter(
      (e) => e.participantId === id,
    );
  }

  /** Every event about a template, in log order. */
  ofTemplate(id: number): readonly AuditEntry[] {
    return [...(this.#templates.get(id as TemplateId) ?? [])];
  }

  /** A JSON-ready copy for snapshots; later events do not show up in it. */
  toData(): AuditTrailData {
    const copy = (map: Map<number, AuditEntry[]>) =>
      [...map].map(([id, entries]) => [id, [...entries]] as const);
    return { signRequests: copy(this.#signRequests), templates: copy(this.#templates) };
  }
}

const append = <K>(map: Map<K, AuditEntry[]>, key: K, entry: AuditEntry): void => {
  const list = map.get(key);
  if (list === undefined) map.set(key, [entry]);
  else list.push(entry);
};
