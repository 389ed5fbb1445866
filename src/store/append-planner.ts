/**
 * Assigns positions and resolves delivery-id duplicates for a group of
 * appends without touching the log's state: the state is only updated once
 * the group is stored, so a failed write leaves positions and ids unchanged.
 */

import type { EncodedRecord } from '../engine/append-encoding.js';
import type { AppendOutcome } from '../engine/event-log.js';
import { envelopeLine } from './envelope.js';

/** The parts of a log's state that appends change. */
export interface AppendState {
  /** Highest position used so far, bad lines included. */
  lastPosition: number;
  /** Delivery id → position of the entry stored with it (one string per delivery id in memory). */
  readonly deliveryIds: Map<string, number>;
}

/** An item that will be stored. */
export interface PlannedEntry {
  readonly position: number;
  readonly item: EncodedRecord;
  /** The envelope line, without the newline. */
  readonly line: string;
}

/** Plans one group of appends on top of a state snapshot. */
export class AppendPlanner {
  readonly #state: AppendState;
  readonly #newIds = new Map<string, number>();
  #lastPosition: number;
  /** Entries to store, in order. */
  readonly entries: PlannedEntry[] = [];

  /** Plans on top of `state`, which is not modified until {@link AppendPlanner.apply}. */
  constructor(state: AppendState) {
    this.#state = state;
    this.#lastPosition = state.lastPosition;
  }

  /** Plans `items` in order and returns their outcomes. */
  add(items: readonly EncodedRecord[]): AppendOutcome[] {
    return items.map((item) => {
      const id = item.deliveryId;
      if (id !== undefined) {
        const seen = this.#state.deliveryIds.get(id) ?? this.#newIds.get(id);
        if (seen !== undefined) return { kind: 'duplicate', position: seen };
      }
      const position = this.#lastPosition + 1;
      this.#lastPosition = position;
      if (id !== undefined) this.#newIds.set(id, position);
      this.entries.push({ position, item, line: envelopeLine(position, item) });
      return { kind: 'appended', position, receivedAt: item.receivedAt };
    });
  }

  /** Commits the plan to the state; call only once the entries are stored. */
  apply(): void {
    this.#state.lastPosition = this.#lastPosition;
    for (const [id, position] of this.#newIds) this.#state.deliveryIds.set(id, position);
  }
}
