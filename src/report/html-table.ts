/**
 * Tables: every number cell carries its raw value in `data-value` (for
 * sorting, and for tests and scripts reading the page), and tables marked
 * sortable get header buttons the page's script wires up.
 */
import { escapeHtml } from './html-text.js';

/** One cell: its text, and for numbers the raw value. */
export interface Cell {
  readonly text: string;
  /** A number (or a sortable string) behind the text; numeric cells are right-aligned. */
  readonly value?: number | string | undefined;
  /** Names the figure (`data-metric`), so it can be found in the page. */
  readonly metric?: string;
  /** Already-safe HTML instead of text (only for markup built here, never from the log). */
  readonly html?: true;
}

/** One row; `company` lets the page's company filter hide it. */
export interface Row {
  readonly cells: readonly Cell[];
  readonly company?: number | null | undefined;
}

/** A table to render. */
export interface TableSpec {
  readonly id: string;
  readonly caption: string;
  readonly columns: readonly string[];
  readonly rows: readonly Row[];
  readonly sortable?: boolean;
  /** Only as wide as its content (small tables). */
  readonly compact?: boolean;
  /** A last row summing up the others, kept out of sorting. */
  readonly footer?: Row;
}

/** A number cell. */
export const num = (value: number, text: string, metric?: string): Cell =>
  metric === undefined ? { text, value } : { text, value, metric };

/** An id (or company) column; `–` sorting first when unknown. */
export const idCell = (id: number | null): Cell =>
  id === null ? { text: '–', value: -1 } : num(id, String(id));

const renderCell = (cell: Cell, tag: 'td' | 'th'): string => {
  const attrs: string[] = [];
  if (typeof cell.value === 'number') attrs.push(`class="n" data-value="${cell.value}"`);
  else if (cell.value !== undefined) attrs.push(`data-value="${escapeHtml(cell.value)}"`);
  if (cell.metric !== undefined) attrs.push(`data-metric="${escapeHtml(cell.metric)}"`);
  const open = attrs.length === 0 ? `<${tag}>` : `<${tag} ${attrs.join(' ')}>`;
  return `${open}${cell.html === true ? cell.text : escapeHtml(cell.text)}</${tag}>`;
};

const renderRow = (row: Row, firstTag: 'td' | 'th' = 'td'): string => {
  const company =
    row.company === undefined || row.company === null ? '' : ` data-company="${row.company}"`;
  const cells = row.cells.map((cell, index) => renderCell(cell, index === 0 ? firstTag : 'td'));
  return `<tr${company}>${cells.join('')}</tr>`;
};

/** The table as HTML, with a caption and a header row. */
export const renderTable = (spec: TableSpec): string => {
  const first = spec.rows[0]?.cells ?? [];
  const head = spec.columns
    .map((label, index) => {
      const numeric = typeof first[index]?.value === 'number' ? ' class="n"' : '';
      const content =
        spec.sortable === true
          ? `<button type="button" class="sort">${escapeHtml(label)}</button>`
          : escapeHtml(label);
      return `<th scope="col"${numeric}>${content}</th>`;
    })
    .join('');
  const body = spec.rows.map((row) => renderRow(row, 'th')).join('\n');
  const foot = spec.footer === undefined ? '' : `<tfoot>${renderRow(spec.footer, 'th')}</tfoot>`;
  const classes = [spec.sortable === true ? 'sortable' : '', spec.compact === true ? 'compact' : '']
    .filter((c) => c !== '')
    .join(' ');
  const sortable = classes === '' ? '' : ` class="${classes}"`;
  return `<div class="table-wrap"><table id="${spec.id}"${sortable}><caption>${escapeHtml(spec.caption)}</caption><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody>${foot}</table></div>`;
};
