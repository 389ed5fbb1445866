/** Reads figures back out of a report page's HTML (no DOM: the page's own attributes). */

/** The `data-value` of the element with `data-metric="name"` (a count) or `data-figure="name"` (a rate, a duration). */
export const metric = (html: string, name: string): number | undefined => {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const tag = new RegExp(`<[^>]*data-(?:metric|figure)="${escaped}"[^>]*>`).exec(html)?.[0];
  const value = tag === undefined ? null : /data-value="([^"]*)"/.exec(tag);
  return value === null ? undefined : Number(value[1]);
};

/** The body rows of the table `id`: each cell's `data-value` (else its text without tags). */
export const tableRows = (html: string, id: string): string[][] => {
  const start = html.indexOf(`<table id="${id}"`);
  if (start === -1) return [];
  const end = html.indexOf('</table>', start);
  const table = html.slice(start, end);
  const body = table.slice(table.indexOf('<tbody>'), table.indexOf('</tbody>'));
  return [...body.matchAll(/<tr[^>]*>(.*?)<\/tr>/gs)].map((row) =>
    [...(row[1] ?? '').matchAll(/<t[hd]([^>]*)>(.*?)<\/t[hd]>/gs)].map((cell) => {
      const value = /data-value="([^"]*)"/.exec(cell[1] ?? '');
      return value?.[1] ?? (cell[2] ?? '').replace(/<[^>]*>/g, '');
    }),
  );
};

/** The footer row of the table `id` for one scope of the company filter (`all` or a company id). */
export const footerRow = (html: string, id: string, scope: string): string[] => {
  const start = html.indexOf(`<table id="${id}"`);
  const table = html.slice(start, html.indexOf('</table>', start));
  const row =
    new RegExp(`<tr[^>]*data-scope="${scope}"[^>]*>(.*?)</tr>`, 's').exec(table)?.[1] ?? '';
  return [...row.matchAll(/<t[hd]([^>]*)>(.*?)<\/t[hd]>/gs)].map(
    (cell) =>
      /data-value="([^"]*)"/.exec(cell[1] ?? '')?.[1] ?? (cell[2] ?? '').replace(/<[^>]*>/g, ''),
  );
};
