/** Positions are safe integers; NaN, fractions or Infinity would corrupt a checkpoint. */
export const checkPosition = (value: number, name: string, least = 1): void => {
  if (!Number.isSafeInteger(value) || value < least) {
    throw new RangeError(`${name} must be an integer ≥ ${least} (got ${value})`);
  }
};

/**
 * Normalizes `ReadOptions.fromPosition`. Positions are integers, so a
 * fractional start rounds up; a missing one means "from the beginning".
 * NaN is rejected rather than silently returning nothing.
 */
export const firstPosition = (fromPosition: number | undefined): number => {
  if (fromPosition === undefined) return 1;
  if (Number.isNaN(fromPosition)) throw new RangeError('fromPosition must be a number (got NaN)');
  return Math.max(1, Math.ceil(fromPosition));
};
