/** A seeded pseudo-random stream (mulberry32): the same seed gives the same draws, on every platform. */
export type Random = () => number;

/** Draws in [0, 1) from a 32-bit seed. */
export const seededRandom = (seed: number): Random => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** A separate stream for one part of the story, so that a change in one part's draws leaves the others'. */
export const subSeed = (seed: number, part: number): number =>
  Math.imul((seed ^ 0x9e3779b9) >>> 0, 0x85ebca6b) ^ Math.imul(part, 0xc2b2ae35);

/** One item of a non-empty list. */
export const pick = <T>(random: Random, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)] as T;
