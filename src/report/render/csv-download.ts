/**
 * The CSV behind a table's download link: built when the page is rendered
 * (no network, no script needed) and carried in a `data:` URL. The file is
 * for spreadsheets, which ops people open without a second look, so every
 * field is quoted when it must be (RFC 4180) and a field that a spreadsheet
 * would run as a formula is neutralised.
 */

/**
 * What starts a formula in Excel, LibreOffice and Google Sheets: `=`, `+`,
 * `-`, `@`, and a tab or carriage return before one of them (OWASP's list).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One field: a leading `'` in front of anything that would start a formula (a
 * template named `=HYPERLINK(…)` stays text), then quoted, inner quotes
 * doubled, when it holds a quote, a comma, a semicolon or a line break.
 */
export const csvField = (text: string): string => {
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return /[",;\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
};

/** Lines of fields, CRLF-separated as RFC 4180 has them, with a final CRLF. */
export const csvText = (lines: readonly (readonly string[])[]): string =>
  lines.map((fields) => `${fields.map(csvField).join(',')}\r\n`).join('');

/**
 * The CSV as a `data:` URL: UTF-8 with a byte-order mark (without it Excel
 * reads UTF-8 as the machine's code page and garbles every non-ASCII name),
 * base64 so the URL needs no further escaping in an attribute.
 */
export const csvDataUrl = (csv: string): string =>
  `data:text/csv;charset=utf-8;base64,${Buffer.from(`\ufeff${csv}`, 'utf8').toString('base64')}`;
