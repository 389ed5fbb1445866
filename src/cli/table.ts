/** Plain-text tables for terminal output: left-aligned columns, two spaces apart. */
import { visibleText } from '../core/visible-text.js';

/**
 * Formats `rows` under `headers`; every row must have as many cells as there
 * are headers. Cells are escaped ({@link visibleText}) before they are
 * measured, so a name holding control characters keeps its column aligned.
 */
export const formatTable = (
  headers: readonly string[],
  dataRows: readonly (readonly string[])[],
  indent = '  ',
): string[] => {
  const rows = dataRows.map((cells) => cells.map(visibleText));
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((cells) => (cells[column] ?? '').length)),
  );
  const render = (cells: readonly string[]): string =>
    // Trailing spaces of the last column would only show up as noise in diffs.
    `${indent}${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}`.trimEnd();
  return [render(headers), ...rows.map(render)];
};
