/**
 * Tables: every number cell carries its raw value in `data-value` (for
 * sorting, and for tests and scripts reading the page), and tables marked
 * sortable get header buttons the page's script wires up. Every table
 * has a CSV download of exactly the rows it lists, and every cell its
 * column's label (`data-label`), which the phone layout shows beside the value
 * when rows stack. Strings from the log are isolated (`<bdi>`) so a
 * right-to-left name cannot reorder what stands beside it.
 */

import { visibleText } from '../../core/visible-text.js';
import { escapeHtml, formatCount } from '../html-text.js';
import { LISTED_ROWS } from '../model/report-model.js';
import { csvDataUrl, csvText } from './csv-download.js';

/** Text longer than this (UTF-16 units) may be cut by the page's CSS: its cell gets a `title`. */
const LONG_TEXT = 80;

/**
 * How many rows a table shows on a phone before its "show all" control:
 * rows stack into cards there (a stuck request's card is about 350 px tall),
 * and a list of 66 stuck requests made a page 33,800 px tall; with 10 rows a
 * table the page of many stuck requests was still 17 screens. Wider screens
 * list every row.
 */
export const PHONE_ROWS = 3;

/**
 * Text up to this many characters (a time to the minute, a dash) shares a
 * line with its neighbours in the phone layout's grid instead of taking a
 * line of its own, so a card stays a few lines tall.
 */
const SHORT_TEXT = 16;

/** One cell: its text, and for numbers the raw value. */
export interface Cell {
  readonly text: string;
  /** A number (or a sortable string) behind the text; numeric cells are right-aligned. */
  readonly value?: number | string | undefined;
  /** Names the figure (`data-metric`), so it can be found in the page. */
  readonly metric?: string;
  /** Already-safe HTML instead of text (only for markup built here, never from the log). */
  readonly html?: true;
  /** The cell's text in the CSV when `html` is set (else the markup's text is used). */
  readonly csv?: string;
  /**
   * A name (template, request, person): kept to one line, cut with an
   * ellipsis, the whole name on hover (`title`), so a long one cannot widen its table.
   */
  readonly name?: true;
}

/** One row; `company` lets the page's company filter hide it. */
export interface Row {
  readonly cells: readonly Cell[];
  readonly company?: number | null | undefined;
  /**
   * A row shown only for one choice of the company filter (`all`, or a
   * company id): totals of the rows shown. Rows of other scopes than `all`
   * start hidden.
   */
  readonly scope?: string;
}

/** A header over several adjacent columns (`label` `''` for columns under no group). */
export interface ColumnGroup {
  readonly label: string;
  readonly span: number;
}

/** A table to render. */
export interface TableLayout {
  readonly id: string;
  readonly caption: string;
  readonly columns: readonly string[];
  readonly rows: readonly Row[];
  readonly sortable?: boolean;
  /** Only as wide as its content (small tables). */
  readonly compact?: boolean;
  /** Last rows summing up the others (one per scope, see {@link Row.scope}), kept out of sorting. */
  readonly footer?: Row | readonly Row[];
  /**
   * Headers over groups of columns, left to right, spans adding up to the
   * number of columns: `declined` / `median` / `p90` under `completed` and
   * `declined` read apart. In the CSV and the phone layout a column's label
   * is then `group · label`.
   */
  readonly groups?: readonly ColumnGroup[];
  /**
   * How many rows there are in all when `rows` is already a cut of a longer
   * list (the model keeps the first {@link LISTED_ROWS}); the page says how
   * many are not listed. Rows past {@link LISTED_ROWS} are cut here too.
   */
  readonly total?: number;
}

/** A number cell. */
export const num = (value: number, text: string, metric?: string): Cell =>
  metric === undefined ? { text, value } : { text, value, metric };

/** An id (or company) column; `–` sorting first when unknown. */
export const idCell = (id: number | null): Cell =>
  id === null ? { text: '–', value: -1 } : num(id, String(id));

/** A name cell (see {@link Cell.name}), sortable by the name. */
export const nameCell = (name: string): Cell => ({ text: name, value: name, name: true });

/**
 * A string from the log as HTML, escaped and isolated: for markup that puts
 * several strings in one cell (`name (company)`, lists of people), each part
 * keeps its own direction.
 */
export const isolated = (text: string): string => `<bdi dir="auto">${escapeHtml(text)}</bdi>`;

/** The label of each column, with its group's in front: `completed · median`. */
export const columnLabels = (spec: Pick<TableLayout, 'columns' | 'groups'>): string[] => {
  const groupOf: string[] = [];
  for (const group of spec.groups ?? []) {
    for (let i = 0; i < group.span; i += 1) groupOf.push(group.label);
  }
  return spec.columns.map((label, index) => {
    const group = groupOf[index] ?? '';
    if (group === '') return label;
    return label === '' || label === group ? group : `${group} · ${label}`;
  });
};

/**
 * The text a cell shows, for the CSV: its markup's text when it is markup,
 * control and bidi characters as the page shows them (`\uXXXX`), so a field
 * never holds a line break and each CSV line is one row.
 */
const plainText = (cell: Cell): string => {
  if (cell.html !== true) return visibleText(cell.text);
  if (cell.csv !== undefined) return visibleText(cell.csv);
  return cell.text
    .replace(/<[^>]*>/g, '')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
};

const renderCell = (cell: Cell, tag: 'td' | 'th', label: string): string => {
  const attrs: string[] = [];
  const classes: string[] = [];
  if (typeof cell.value === 'number') classes.push('n');
  if (cell.name === true) classes.push('name');
  const whole = plainText(cell);
  if (typeof cell.value !== 'number' && cell.name !== true && [...whole].length <= SHORT_TEXT) {
    classes.push('s');
  }
  if (classes.length > 0) attrs.push(`class="${classes.join(' ')}"`);
  if (cell.value !== undefined) attrs.push(`data-value="${escapeHtml(String(cell.value))}"`);
  if (cell.metric !== undefined) attrs.push(`data-metric="${escapeHtml(cell.metric)}"`);
  if (label !== '') attrs.push(`data-label="${escapeHtml(label)}"`);
  // A name is cut to one line, other text to a few (CSS): the whole of it on hover.
  if (cell.name === true || (typeof cell.value !== 'number' && whole.length > LONG_TEXT)) {
    attrs.push(`title="${escapeHtml(whole)}"`);
  }
  const open = attrs.length === 0 ? `<${tag}>` : `<${tag} ${attrs.join(' ')}>`;
  // Numbers are the page's own; any other text may come from the log. Markup is
  // wrapped too (its parts isolated by `isolated`), so the page can clamp it.
  const content =
    typeof cell.value === 'number'
      ? cell.html === true
        ? cell.text
        : escapeHtml(cell.text)
      : `<bdi>${cell.html === true ? cell.text : escapeHtml(cell.text)}</bdi>`;
  return `${open}${content}</${tag}>`;
};

const renderRow = (row: Row, labels: readonly string[], firstTag: 'td' | 'th' = 'td'): string => {
  const company =
    row.company === undefined || row.company === null ? '' : ` data-company="${row.company}"`;
  const scope =
    row.scope === undefined
      ? ''
      : ` data-scope="${escapeHtml(row.scope)}"${row.scope === 'all' ? '' : ' hidden'}`;
  const cells = row.cells.map((cell, index) =>
    renderCell(cell, index === 0 ? firstTag : 'td', labels[index] ?? ''),
  );
  return `<tr${company}${scope}>${cells.join('')}</tr>`;
};

/** The row of group headers, or nothing. */
const groupRow = (spec: TableLayout): string => {
  if (spec.groups === undefined || spec.groups.length === 0) return '';
  const cells = spec.groups.map((group) => {
    const span = group.span > 1 ? ` colspan="${group.span}"` : '';
    return group.label === ''
      ? `<td${span}></td>`
      : `<th scope="colgroup"${span}>${escapeHtml(group.label)}</th>`;
  });
  return `<tr class="groups">${cells.join('')}</tr>`;
};

const footers = (spec: TableLayout): readonly Row[] =>
  spec.footer === undefined ? [] : 'cells' in spec.footer ? [spec.footer] : spec.footer;

/** The CSV link: the header line (labels with their groups), then the listed rows and the footer. */
const csvLink = (spec: TableLayout, rows: readonly Row[], labels: readonly string[]): string => {
  const lines = [labels, ...rows.map((row) => row.cells.map(plainText))];
  for (const row of footers(spec)) lines.push(row.cells.map(plainText));
  const count = `${formatCount(rows.length)} ${rows.length === 1 ? 'row' : 'rows'}`;
  return `<a class="csv" data-table="${spec.id}" download="${spec.id}.csv" href="${csvDataUrl(csvText(lines))}">CSV (${count})</a>`;
};

/**
 * The phone's "show all" control of a table of more than {@link PHONE_ROWS}
 * rows: a `<details>` with no content, whose open state the stylesheet reads
 * (`:has()`) to show the rows past the first ones. It needs no script, so it
 * works with JavaScript off, and the rows stay in the table: sorting, the
 * company filter (the first rows are the first shown) and the CSV (every
 * listed row, collapsed or not) are untouched. Hidden on wider screens and
 * in print, where every row shows.
 */
const moreControl = (spec: TableLayout, rows: number): string =>
  rows <= PHONE_ROWS
    ? ''
    : `<details class="more" data-table="${spec.id}"><summary><span class="closed">Show all rows (the first ${PHONE_ROWS} are shown)</span><span class="open">Show the first ${PHONE_ROWS} rows only</span></summary></details>`;

/** What is not listed, when the list is cut. */
const restNote = (listed: number, total: number): string =>
  listed >= total
    ? ''
    : `<p class="note rest" data-listed="${listed}" data-total="${total}">${formatCount(listed)} of ${formatCount(total)} listed; ${formatCount(total - listed)} more not listed here nor in the CSV.</p>`;

/** The table as HTML, with a caption, header rows, and a CSV link under it. */
export const renderTable = (spec: TableLayout): string => {
  const rows = spec.rows.length > LISTED_ROWS ? spec.rows.slice(0, LISTED_ROWS) : spec.rows;
  const total = Math.max(spec.total ?? 0, spec.rows.length);
  const labels = columnLabels(spec);
  const first = rows[0]?.cells ?? [];
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
  const body = rows.map((row) => renderRow(row, labels, 'th')).join('\n');
  const foot =
    spec.footer === undefined
      ? ''
      : `<tfoot>${footers(spec)
          .map((row) => renderRow(row, labels, 'th'))
          .join('')}</tfoot>`;
  const classes = [spec.sortable === true ? 'sortable' : '', spec.compact === true ? 'compact' : '']
    .filter((c) => c !== '')
    .join(' ');
  const sortable = classes === '' ? '' : ` class="${classes}"`;
  return `<div class="table-wrap"><table id="${spec.id}"${sortable}><caption>${escapeHtml(spec.caption)}</caption><thead>${groupRow(spec)}<tr>${head}</tr></thead><tbody>\n${body}\n</tbody>${foot}</table></div>${moreControl(spec, rows.length)}
<p class="table-tools">${csvLink(spec, rows, labels)}</p>${restNote(rows.length, total)}`;
};
