/**
 * Every string a report page prints, read from its HTML: the text of each
 * block (inline markup such as `<span>`, `<a>` and `<code>` joined into the
 * sentence around it, so `<span>1</span> bad lines` reads as `1 bad lines`;
 * a card's `<b>` value and `<small>` note are blocks of their own there),
 * and the attributes people read: `title` (hover), `aria-label`, `alt`,
 * `data-label` (the phone layout prints it before each cell) and the CSV
 * links' `download` name. Scripts and styles are not text. A regex reader,
 * not a DOM: the page is the report's own markup, every string from the log
 * escaped, so `<` only ever opens a tag.
 */

const INLINE = new Set(['a', 'abbr', 'bdi', 'code', 'em', 'span', 'strong', 'time', 'tspan']);
const SHOWN_ATTRIBUTES = ['title', 'aria-label', 'alt', 'data-label', 'download'];

const ENTITIES: Readonly<Record<string, string>> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

const decode = (text: string): string =>
  text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);

/** The text strings and the read attributes' values of `html`, whitespace collapsed, empty ones left out. */
export const pageStrings = (html: string): string[] => {
  const body = html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<style[\s\S]*?<\/style>/g, '');
  const strings: string[] = [];
  for (const tag of body.matchAll(/<[a-zA-Z][^>]*>/g)) {
    for (const name of SHOWN_ATTRIBUTES) {
      const value = new RegExp(`\\s${name}="([^"]*)"`).exec(tag[0])?.[1];
      if (value !== undefined) strings.push(decode(value));
    }
  }
  const text = body.replace(/<\/?([a-zA-Z][\w-]*)[^>]*>/g, (_, name: string) =>
    INLINE.has(name.toLowerCase()) ? '' : '\n',
  );
  for (const line of text.split('\n')) strings.push(decode(line));
  return strings.map((s) => s.replace(/\s+/g, ' ').trim()).filter((s) => s !== '');
};
