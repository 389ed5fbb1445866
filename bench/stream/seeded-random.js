// @ts-check
/** Seeded pseudo-random numbers for the stream generator: one seed, independent sub-streams. */

/**
 * mulberry32: a tiny, fast 32-bit PRNG.
 * @param {number} seed any integer (only the low 32 bits are used)
 * @returns {() => number} a function returning floats in [0, 1)
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Mixes a seed (any safe integer) and a salt into a 32-bit sub-seed, so that
 * independent PRNG streams can be derived from one seed.
 * @param {number} seed
 * @param {number} salt
 * @returns {number}
 */
export const subSeed = (seed, salt) => {
  const lo = seed >>> 0;
  const hi = Math.floor(seed / 4294967296) >>> 0;
  let h = Math.imul(lo ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(hi + salt, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
};
