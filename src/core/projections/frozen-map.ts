/**
 * A Map that refuses writes once made. immer's `freeze` gives a Map the same
 * refusal by defining `set`, `delete` and `clear` on the instance, which turns
 * each Map into a slow dictionary object: measured at several microseconds a
 * Map, too much for a small state made per applied event (a reactor's
 * `change.state`). Here the refusal lives on the prototype.
 */
export class FrozenMap<K, V> extends Map<K, V> {
  /** Set once the entries are in: `super(entries)` would call `set` before it exists. */
  readonly #sealed: boolean;

  /** A frozen Map of `entries`. */
  constructor(entries: Iterable<readonly [K, V]> = []) {
    super();
    for (const [key, value] of entries) super.set(key, value);
    this.#sealed = true;
    Object.freeze(this);
  }

  /** Throws a `TypeError`: the Map is read-only. */
  override set(key: K, value: V): this {
    if (this.#sealed) throw readOnly();
    return super.set(key, value);
  }

  /** Throws a `TypeError`: the Map is read-only. */
  override delete(_key: K): boolean {
    throw readOnly();
  }

  /** Throws a `TypeError`: the Map is read-only. */
  override clear(): void {
    throw readOnly();
  }
}

const readOnly = (): TypeError =>
  new TypeError('this Map is read-only (a frozen projection state)');
