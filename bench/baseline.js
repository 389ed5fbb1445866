// Baseline 1: what any replay must pay at least: stream the file, split lines, JSON.parse.
import { createReadStream } from 'node:fs';

/**
 * Reads an NDJSON file in 1 MiB chunks, splits lines and parses each one.
 * @param {string} path
 * @returns {Promise<number>} the number of lines parsed
 */
export const readSplitParse = async (path) => {
  let rest = '';
  let count = 0;
  let sink = 0;
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const text = rest + chunk;
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      if (end > start) {
        const value = JSON.parse(text.slice(start, end));
        sink += value.position === undefined ? 0 : 1;
        count += 1;
      }
      start = end + 1;
    }
    rest = text.slice(start);
  }
  if (rest.length > 0) {
    JSON.parse(rest);
    count += 1;
  }
  return sink >= 0 ? count : -1;
};
