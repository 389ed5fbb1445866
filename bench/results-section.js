// Replaces one benchmark's section of bench/RESULTS.md. A section starts at its marker
// (`<!-- bench/NAME.js -->`) and runs to the next `<!-- bench/` marker or the end; bench/run.js
// rewrites the head of the file and keeps everything from the first marker on.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** bench/RESULTS.md */
export const RESULTS_FILE = join(import.meta.dirname, 'RESULTS.md');

/**
 * Writes `section` (which starts with `marker`) in place of the file's section of that marker, or
 * at the end when there is none; the other sections stay as they are.
 * @param {string} marker
 * @param {string} section
 * @param {string} [file]
 */
export const replaceResultsSection = (marker, section, file = RESULTS_FILE) => {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const start = previous.indexOf(marker);
  const next = start === -1 ? -1 : previous.indexOf('<!-- bench/', start + marker.length);
  const before = start === -1 ? previous.trimEnd() : previous.slice(0, start).trimEnd();
  const after = next === -1 ? '' : `\n\n${previous.slice(next).trimEnd()}`;
  writeFileSync(file, `${before}\n\n${section.trimEnd()}\n${after}\n`);
};
