/**
 * The positions each reactor passed while they were quarantined (an invalid
 * event or a conflict): the only ones at or below its checkpoint it may still
 * react to. After an upgrade or a new upcaster, the runner's first fold may
 * apply one of them; the reactor then reacts to it once, and the position
 * leaves its set for good, so a later fold never hands it over again. A
 * position that was a no-op when passed is not here: the reactor had nothing
 * to react to, and a rule that later makes it applicable does not bring it
 * back (docs/reactors.md says so).
 *
 * The journal keeps the sets as changes (`add`, `remove`) per line, and
 * whole (`add`) in its compacted first record.
 */

/** The change of one reactor's set, as a journal line holds it. */
export interface UnreactedChange {
  readonly add?: readonly number[];
  readonly remove?: readonly number[];
}

/** Reactor name → the change of its set. */
export type UnreactedChanges = Readonly<Record<string, UnreactedChange>>;

/** Per reactor, the positions passed while quarantined and not reacted to since. */
export class UnreactedPositions {
  readonly #sets = new Map<string, Set<number>>();
  #pending = new Map<string, { add: number[]; remove: number[] }>();

  /** Sets built from a journal's changes, read in order. */
  static fromChanges(changes: readonly UnreactedChanges[]): UnreactedPositions {
    const positions = new UnreactedPositions();
    for (const change of changes) {
      for (const [reactor, { add = [], remove = [] }] of Object.entries(change)) {
        const set = positions.#setOf(reactor);
        for (const position of add) set.add(position);
        for (const position of remove) set.delete(position);
      }
    }
    positions.#pending = new Map();
    return positions;
  }

  #setOf(reactor: string): Set<number> {
    let set = this.#sets.get(reactor);
    if (set === undefined) {
      set = new Set();
      this.#sets.set(reactor, set);
    }
    return set;
  }

  #pendingOf(reactor: string): { add: number[]; remove: number[] } {
    let pending = this.#pending.get(reactor);
    if (pending === undefined) {
      pending = { add: [], remove: [] };
      this.#pending.set(reactor, pending);
    }
    return pending;
  }

  /** Whether `reactor` passed `position` while it was quarantined and has not reacted to it since. */
  has(reactor: string, position: number): boolean {
    return this.#sets.get(reactor)?.has(position) === true;
  }

  /** `reactor` passed `position` while it was quarantined. */
  passed(reactor: string, position: number): void {
    const set = this.#setOf(reactor);
    if (set.has(position)) return;
    set.add(position);
    this.#pendingOf(reactor).add.push(position);
  }

  /** `reactor` reacted to `position` at last: never again. */
  reacted(reactor: string, position: number): void {
    if (this.#sets.get(reactor)?.delete(position) !== true) return;
    this.#pendingOf(reactor).remove.push(position);
  }

  /** The changes since the last call, for the next journal line (`undefined`: none). */
  takeChanges(): UnreactedChanges | undefined {
    if (this.#pending.size === 0) return undefined;
    const changes: Record<string, UnreactedChange> = {};
    for (const [reactor, { add, remove }] of this.#pending) {
      changes[reactor] = {
        ...(add.length === 0 ? {} : { add }),
        ...(remove.length === 0 ? {} : { remove }),
      };
    }
    this.#pending = new Map();
    return changes;
  }

  /** Every set whole, as additions (the compacted journal's record). */
  whole(): UnreactedChanges {
    const changes: Record<string, UnreactedChange> = {};
    for (const [reactor, set] of this.#sets) {
      if (set.size > 0) changes[reactor] = { add: [...set].sort((a, b) => a - b) };
    }
    return changes;
  }
}
