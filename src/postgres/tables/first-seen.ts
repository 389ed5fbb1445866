/**
 * The position of the event that created each record a batch creates, for
 * the `first_position` column (migration-first-seen.ts): a replay lists
 * records in creation order, and the tables can give that order back only
 * if each row knows when it was created.
 */
import type { Result } from 'neverthrow';
import type { ProjectionState } from '../../core/projections/projection-state.js';
import type { LogRecord } from '../../engine/event-log.js';
import type { Projector } from '../../engine/projector.js';
import type { ApplyResult, Halted } from '../../engine/projector-types.js';

const idOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;

/** The key of a participant: ids are per sign request. */
export const participantKey = (signRequestId: number, id: number): string =>
  `${signRequestId}:${id}`;

/**
 * Notes, after each applied record of a batch, which records now exist that
 * neither the loaded state nor an earlier record of the batch held. Only the
 * records the event names are looked at (its template, its sign request and
 * that request's participants, which a sign-request event or an observation
 * may create several of), a few map lookups per applied event.
 */
export class FirstSeen {
  readonly #before: ProjectionState;
  readonly templates = new Map<number, number>();
  readonly signRequests = new Map<number, number>();
  readonly participants = new Map<string, number>();

  constructor(before: ProjectionState) {
    this.#before = before;
  }

  /** Looks at what `record` (just given to `projector`, with `outcome`) created. */
  note(projector: Projector, record: LogRecord, outcome: Result<ApplyResult, Halted>): void {
    if (record.kind !== 'entry' || !outcome.isOk() || outcome.value !== 'applied') return;
    const event = record.event as { readonly templateId?: unknown; signRequestId?: unknown };
    const templateId = idOf(event.templateId);
    const signRequestId = idOf(event.signRequestId);
    const at = record.position;
    const before = this.#before as {
      readonly templates: ReadonlyMap<number, unknown>;
      readonly signRequests: ReadonlyMap<number, unknown>;
      readonly participants: ReadonlyMap<number, ReadonlyMap<number, unknown>>;
    };
    projector.peekState((state) => {
      const now = state as typeof before;
      if (
        templateId !== undefined &&
        !this.templates.has(templateId) &&
        now.templates.has(templateId) &&
        !before.templates.has(templateId)
      ) {
        this.templates.set(templateId, at);
      }
      if (signRequestId === undefined) return;
      if (
        !this.signRequests.has(signRequestId) &&
        now.signRequests.has(signRequestId) &&
        !before.signRequests.has(signRequestId)
      ) {
        this.signRequests.set(signRequestId, at);
      }
      const loaded = before.participants.get(signRequestId);
      for (const id of now.participants.get(signRequestId)?.keys() ?? []) {
        const key = participantKey(signRequestId, id);
        if (!this.participants.has(key) && loaded?.has(id) !== true) {
          this.participants.set(key, at);
        }
      }
    });
  }
}
