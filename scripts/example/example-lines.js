// @ts-check
/**
 * The lines of `events.ndjson`: the clean stream with the insertions merged in
 * after their events, every line in a delivery envelope (`bench/stream/`).
 */
import { envelopes } from '../../bench/stream/ndjson-output.js';
import { EXAMPLE } from './example-stream.js';

/** @typedef {import('../../bench/stream/ndjson-output.js').Envelope} Envelope */
/** @typedef {import('./example-stream.js').StreamEvent} StreamEvent */
/** @typedef {import('./insertion-sites.js').Insert} Insert */

/**
 * @typedef {{ lines: (Envelope | string)[], envelopeAt: Envelope[],
 *   positionOf: Map<Insert, number> }} ExampleLines
 */

/**
 * Merges `inserts` (sorted by `after`) into `events`.
 * @param {readonly StreamEvent[]} events
 * @param {readonly Insert[]} inserts
 * @returns {ExampleLines} `lines` to write (a broken insertion as its cut-off text),
 *   `envelopeAt` the envelope of each clean event by index, `positionOf` each insertion's position.
 */
export const exampleLines = (events, inserts) => {
  /** @type {{ event: object, index?: number, insert?: Insert }[]} */
  const items = [];
  let k = 0;
  events.forEach((event, index) => {
    items.push({ event, index });
    for (let insert = inserts[k]; insert?.after === index; insert = inserts[++k]) {
      items.push({ event: insert.event, insert });
    }
  });
  /** @type {ExampleLines} */
  const out = { lines: [], envelopeAt: [], positionOf: new Map() };
  const wrapped = envelopes(
    items.map((x) => x.event),
    { seed: EXAMPLE.seed, meanGapMs: 1500 },
  );
  for (const [n, env] of [...wrapped].entries()) {
    const { index, insert } = /** @type {(typeof items)[number]} */ (items[n]);
    if (index !== undefined) out.envelopeAt[index] = env;
    if (insert !== undefined) out.positionOf.set(insert, env.position);
    if (insert?.broken) {
      const text = JSON.stringify(env);
      out.lines.push(text.slice(0, text.indexOf('"roleId"') + 12));
    } else out.lines.push(env);
  }
  return out;
};
