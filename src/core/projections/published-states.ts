/**
 * States signfold itself made and deeply froze. A working copy may share their
 * records and collections; any other state (built by hand, deserialised,
 * frozen with plain `Object.freeze`, which does not stop `Map.set`) is copied
 * first, so the caller's objects are never written to.
 *
 * Kept over plain objects rather than `ProjectionState`: the module that
 * defines the state marks its empty state here, so importing that type back
 * would tie the two files in a cycle (and marking any other object is harmless).
 */
const PUBLISHED = new WeakSet<object>();

/** Records that `state` was made and deeply frozen by signfold. */
export const markPublished = <T extends object>(state: T): T => {
  PUBLISHED.add(state);
  return state;
};

/** Whether `state` was made and deeply frozen by signfold. */
export const isPublished = (state: object): boolean => PUBLISHED.has(state);
