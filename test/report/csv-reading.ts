/** Reading the report's CSV downloads back, as a spreadsheet would (RFC 4180). */

/** Records of `text`: fields split on commas and CRLF, quoted fields unquoted. */
export const parseCsv = (text: string): string[][] => {
  const records: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const char = text[i] as string;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (char === '"') quoted = false;
      else field += char;
      i += 1;
      continue;
    }
    if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      fields.push(field);
      records.push(fields);
      fields = [];
      field = '';
      i += 1;
    } else field += char;
    i += 1;
  }
  if (field !== '' || fields.length > 0) {
    fields.push(field);
    records.push(fields);
  }
  return records;
};

/** The text of a `data:text/csv;…;base64,` URL, its byte-order mark dropped. */
export const csvOfDataUrl = (url: string): string => {
  const prefix = 'data:text/csv;charset=utf-8;base64,';
  if (!url.startsWith(prefix)) throw new Error(`not a CSV data URL: ${url.slice(0, 40)}`);
  const text = Buffer.from(url.slice(prefix.length), 'base64').toString('utf8');
  if (!text.startsWith('\ufeff')) throw new Error('no byte-order mark');
  return text.slice(1);
};

/** The records of the first CSV link in `html`. */
export const readCsvHref = (html: string): string[][] => {
  const href = /<a class="csv"[^>]* href="([^"]+)"/.exec(html)?.[1];
  if (href === undefined) throw new Error('no CSV link');
  return parseCsv(csvOfDataUrl(href));
};
