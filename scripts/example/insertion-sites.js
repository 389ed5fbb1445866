// @ts-check
/**
 * Where the example inserts its lines: each insertion concerns its own sign
 * request, so that every malformed line and conflict has one clear cause.
 */

/** @typedef {import('./example-stream.js').ExampleStream} ExampleStream */
/** @typedef {import('./example-stream.js').RequestInfo} RequestInfo */
/** @typedef {import('./example-stream.js').StreamEvent} StreamEvent */

/**
 * A line inserted after the clean event at index `after`, about sign request
 * `signRequestId`. `broken` lines are cut off mid-line (not JSON); `deletedAt`
 * is the index of the delete an event arrives after.
 * @typedef {{ after: number, signRequestId: number, event: object,
 *   kind: 'malformed' | 'conflict', code: string, what: string, broken?: boolean,
 *   deletedAt?: number }} Insert
 */

/**
 * @typedef {{
 *   request(fraction: number, test: (r: RequestInfo) => boolean): RequestInfo,
 *   event(fraction: number, test: (e: StreamEvent) => boolean): number,
 *   used: ReadonlySet<number> }} InsertionSites
 */

/**
 * Picks sign requests not used yet, marking each one it returns as used.
 * @param {ExampleStream} stream
 * @returns {InsertionSites}
 */
export const insertionSites = ({ events, requestList }) => {
  /** @type {Set<number>} */
  const used = new Set();
  const from = (/** @type {number} */ fraction) => Math.floor(events.length * fraction);
  return {
    used,
    // The first fitting request starting at or after `fraction` of the stream, else the first at all.
    request(fraction, test) {
      const fits = (/** @type {RequestInfo} */ q) => !used.has(q.id) && test(q);
      const r =
        requestList.find((q) => q.first >= from(fraction) && fits(q)) ?? requestList.find(fits);
      if (r === undefined) throw new Error(`no request fits at ${fraction}`);
      used.add(r.id);
      return r;
    },
    // The index of the first fitting event at or after `fraction` of the stream.
    event(fraction, test) {
      for (let i = from(fraction); i < events.length; i++) {
        const e = /** @type {StreamEvent} */ (events[i]);
        if (e.signRequestId !== undefined && test(e) && !used.has(e.signRequestId)) {
          used.add(e.signRequestId);
          return i;
        }
      }
      throw new Error(`no event fits at ${fraction}`);
    },
  };
};

/**
 * A copy of `event` with some members replaced, in the same member order (a
 * line differs from its neighbour only where the example says it does).
 * @param {object} event
 * @param {Record<string, unknown>} changes
 * @returns {Record<string, unknown>}
 */
export const withMembers = (event, changes) =>
  Object.fromEntries(
    Object.entries(event).map(([k, v]) => [k, Object.hasOwn(changes, k) ? changes[k] : v]),
  );
