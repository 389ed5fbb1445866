import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LISTED_ROWS } from '../../../src/report/model/report-model.js';
import { csvDataUrl, csvField, csvText } from '../../../src/report/render/csv-download.js';
import { nameCell, num, renderTable } from '../../../src/report/render/html-table.js';
import { parseCsv, readCsvHref } from '../csv-reading.js';

const table = (rows: { name: string; n: number }[], total?: number) =>
  renderTable({
    id: 't',
    caption: 'a table',
    columns: ['template', 'count', 'median', 'p90', 'median', 'p90'],
    groups: [
      { label: '', span: 2 },
      { label: 'completed', span: 2 },
      { label: 'declined', span: 2 },
    ],
    rows: rows.map((r) => ({
      cells: [
        nameCell(r.name),
        num(r.n, String(r.n)),
        { text: '1 h' },
        { text: '2 h' },
        { text: '3 h' },
        { text: '4 h' },
      ],
    })),
    ...(total === undefined ? {} : { total }),
  });

describe('renderTable', () => {
  it('puts group headers over repeated labels, and names each cell by group and label', () => {
    const html = table([{ name: 'Lease', n: 3 }]);
    expect(html).toContain(
      '<tr class="groups"><td colspan="2"></td><th scope="colgroup" colspan="2">completed</th><th scope="colgroup" colspan="2">declined</th></tr>',
    );
    expect(html).toContain('data-label="completed · median"');
    expect(html).toContain('data-label="declined · p90"');
  });

  it('keeps a name to one line with the whole of it on hover, escaped and isolated', () => {
    const hostile = '"><img src=x onerror=alert(1)>\u202Efdp.exe';
    const html = table([{ name: hostile, n: 1 }]);
    expect(html).toContain(
      '<th class="name" data-value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;\\u202efdp.exe" data-label="template" title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;\\u202efdp.exe"><bdi>&quot;&gt;&lt;img',
    );
    expect(html).not.toContain('<img');
    expect(html).not.toContain('\u202E');
  });

  it('isolates every text cell (bdi), not the numbers', () => {
    const html = table([{ name: 'שלום', n: 7 }]);
    // Short text shares a line with its neighbours on a phone (class s).
    expect(html).toContain('<td class="s" data-label="completed · median"><bdi>1 h</bdi></td>');
    expect(html).toContain('<td class="n" data-value="7" data-label="count">7</td>');
  });

  it('offers a CSV of exactly the rows it lists, spreadsheet-safe', () => {
    const rows = [
      { name: '=HYPERLINK("http://x","y")', n: 1 },
      { name: 'a, "b"\nc', n: 2 },
      { name: '@SUM(A1)', n: 3 },
    ];
    const csv = readCsvHref(table(rows));
    expect(csv).toEqual([
      [
        'template',
        'count',
        'completed · median',
        'completed · p90',
        'declined · median',
        'declined · p90',
      ],
      [`'=HYPERLINK("http://x","y")`, '1', '1 h', '2 h', '3 h', '4 h'],
      // As the page shows it: the line break as visible \u000a, so each row is one CSV line.
      ['a, "b"\\u000ac', '2', '1 h', '2 h', '3 h', '4 h'],
      ["'@SUM(A1)", '3', '1 h', '2 h', '3 h', '4 h'],
    ]);
  });

  it('lists the first LISTED_ROWS rows and says how many more there are', () => {
    const rows = Array.from({ length: LISTED_ROWS + 5 }, (_, i) => ({ name: `r${i}`, n: i }));
    const html = table(rows);
    expect(html.match(/<tr>/g)).toHaveLength(LISTED_ROWS + 1);
    expect(html).toContain('1,000 of 1,005 listed; 5 more not listed here nor in the CSV.');
    expect(readCsvHref(html)).toHaveLength(LISTED_ROWS + 1);
    // A list the model cut already: the total it gives is what the note counts.
    expect(table(rows.slice(0, 3), 40)).toContain('3 of 40 listed; 37 more');
    expect(table(rows.slice(0, 3))).not.toContain('listed;');
  });
});

describe('csv', () => {
  it('reads back every field as written, formulas neutralised', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 5,
        }),
        (lines) => {
          const parsed = parseCsv(csvText(lines));
          const expected = lines.map((fields) =>
            fields.map((f) => (/^[=+\-@\t\r]/.test(f) ? `'${f}` : f)),
          );
          expect(parsed).toEqual(expected);
        },
      ),
    );
  });

  it('quotes only what needs it', () => {
    expect(csvField('plain text')).toBe('plain text');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('-1')).toBe("'-1");
    expect(csvField('–')).toBe('–');
  });

  it('is a UTF-8 data URL with a byte-order mark', () => {
    const url = csvDataUrl('é,😀\r\n');
    expect(url.startsWith('data:text/csv;charset=utf-8;base64,')).toBe(true);
    const bytes = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString('utf8')).toBe('é,😀\r\n');
  });
});
