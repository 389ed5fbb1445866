import type { ProjectionState } from './projection-state.js';

/**
 * States signfold itself made and deeply froze. A working copy may share their
 * records and collections; any other state (built by hand, deserialised,
 * frozen with plain `Object.freeze`, which does not stop `Map.set`) is copied
 * first, so the caller's objects are never written to.
 */
const PUBLISHED = new WeakSet<ProjectionState>();

/** Records that `state` was made and deeply frozen by signfold. */
export const markPublished = <T extends ProjectionState>(state: T): T => {
  PUBLISHED.add(state);
  return state;
};

/** Whether `state` was made and deeply frozen by signfold. */
export const isPublished = (state: ProjectionState): boolean => PUBLISHED.has(state);
