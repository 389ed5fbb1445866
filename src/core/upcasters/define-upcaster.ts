/**
 * `defineUpcaster`: the one place an upcaster definition is checked, so the
 * projector, the CLI's module loader and the stores see the same shape.
 */
import type { Upcaster, UpcasterDefinition } from './upcaster-types.js';

/** As reactor names: printable ASCII, since the name is shown in audit trails and messages. */
const UPCASTER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Longest wire type an upcaster may name; the decoder quotes at most 40 characters of one. */
const MAX_FROM_LENGTH = 200;

/**
 * A validated upcaster: a pure rewrite of wire JSON applied before decoding
 * (see docs/engine.md#upcasters). `from` is the wire `type` it applies to,
 * or a predicate on the wire JSON (only JSON objects are shown to either); `to` returns the wire JSON of one event,
 * an array of several, or `[]` for none. Throws a `TypeError` on a bad
 * definition, a programming error found at load time: a name outside
 * `[A-Za-z0-9][A-Za-z0-9._-]{0,63}`, `from` neither a non-empty string (at
 * most 200 characters) nor a function, `to` not a function.
 *
 * @example
 * ```ts
 * import { defineUpcaster } from 'signfold/upcasters';
 *
 * // An older service spelled the member `requestId`.
 * const renamed = defineUpcaster({
 *   name: 'request-id-renamed',
 *   from: (wire) => 'requestId' in wire,
 *   to: ({ requestId, ...rest }) => ({ ...rest, signRequestId: requestId }),
 * });
 * console.log(renamed.name); // request-id-renamed
 * ```
 */
export const defineUpcaster = (definition: UpcasterDefinition): Upcaster => {
  if (typeof definition !== 'object' || definition === null) {
    throw new TypeError('an upcaster definition must be an object');
  }
  const { name, from, to } = definition;
  if (typeof name !== 'string' || !UPCASTER_NAME.test(name)) {
    throw new TypeError(
      `upcaster name ${JSON.stringify(name)} must match [A-Za-z0-9][A-Za-z0-9._-]{0,63}`,
    );
  }
  if (typeof from === 'string') {
    if (from.length === 0 || from.length > MAX_FROM_LENGTH) {
      throw new TypeError(
        `upcaster "${name}": from must be a wire type of 1 to ${MAX_FROM_LENGTH} characters or a predicate`,
      );
    }
  } else if (typeof from !== 'function') {
    throw new TypeError(`upcaster "${name}": from must be a wire type (a string) or a function`);
  }
  if (typeof to !== 'function') {
    throw new TypeError(`upcaster "${name}": to must be a function`);
  }
  return Object.freeze({ name, from, to });
};
