/**
 * A binary min-heap of scheduled timers by due time (then id), so releasing
 * a watermark touches only the timers it releases, however many wait. Timers
 * cancelled or replaced meanwhile are left in place and dropped when they
 * reach the top (`isLive` says which still count).
 */
import type { EffectEntry } from './effect-entry.js';

const before = (a: EffectEntry, b: EffectEntry): boolean =>
  (a.dueAt as number) < (b.dueAt as number) ||
  ((a.dueAt as number) === (b.dueAt as number) && a.id < b.id);

/** See the module comment. */
export class DueHeap<E extends EffectEntry> {
  readonly #items: E[] = [];

  constructor(private readonly isLive: (entry: E) => boolean) {}

  /** Adds a timer (it must have a `dueAt`). */
  push(entry: E): void {
    const items = this.#items;
    items.push(entry);
    let at = items.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!before(items[at] as E, items[parent] as E)) break;
      [items[at], items[parent]] = [items[parent] as E, items[at] as E];
      at = parent;
    }
  }

  /** The live timer due first, or `undefined` (dead ones on top are dropped). */
  peek(): E | undefined {
    while (this.#items.length > 0 && !this.isLive(this.#items[0] as E)) this.#pop();
    return this.#items[0];
  }

  /** Removes and returns the live timer due first, if it is due at or before `upTo`. */
  popDue(upTo: number): E | undefined {
    const top = this.peek();
    if (top === undefined || (top.dueAt as number) > upTo) return undefined;
    this.#pop();
    return top;
  }

  #pop(): void {
    const items = this.#items;
    const last = items.pop() as E;
    if (items.length === 0) return;
    items[0] = last;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let first = at;
      if (left < items.length && before(items[left] as E, items[first] as E)) first = left;
      if (right < items.length && before(items[right] as E, items[first] as E)) first = right;
      if (first === at) return;
      [items[at], items[first]] = [items[first] as E, items[at] as E];
      at = first;
    }
  }
}
