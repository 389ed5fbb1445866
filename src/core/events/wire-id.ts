/**
 * The one rule for ids on the wire (docs/service-interface.md): an id is a JSON number that
 * is a safe integer. The decoders, the PostgreSQL routing columns and the
 * keys a projection worker loads records by all read ids through it, so a
 * value the core rejects (`0.5`, `1e400`, `9223372036854775808`, `"7"`)
 * never becomes a key anywhere.
 */

/** Whether a wire value is an id: a number that is a safe integer. */
export const isWireId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value);

/** The id a wire value stands for, as the decoder reads it (`-0` is `0`); `undefined` when it is none. */
export const wireId = (value: unknown): number | undefined =>
  // `+ 0` turns -0 into 0: both are the same id.
  isWireId(value) ? value + 0 : undefined;
