// @ts-nocheck: these functions run in the page (playwright serialises them), where the DOM is;
// the project's type check has no DOM types (and adding them would mistype Node's fetch).
/** Probes the browser tests run inside a report page; browser-checks.ts calls them. */

/** See `layoutOf` in browser-checks.ts. */
export const layoutProbe = () => {
  const name = (e) =>
    `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.getAttribute('class') ? `.${e.getAttribute('class').replaceAll(' ', '.')}` : ''} "${(e.textContent ?? '').slice(0, 30)}"`;
  const problems = [];
  const scrolling = new Set();
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) {
    problems.push(`the page scrolls sideways: ${root.scrollWidth} > ${root.clientWidth}`);
  }
  const scroller = (e) => {
    const wrap = e.closest('.table-wrap');
    return wrap instanceof HTMLElement && getComputedStyle(wrap).overflowX === 'auto' ? wrap : null;
  };
  for (const e of document.body.querySelectorAll('*')) {
    if (!e.checkVisibility()) continue;
    const box = e.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    let container = e.parentElement;
    if (e instanceof SVGElement && e.ownerSVGElement !== null) {
      let svg = e.ownerSVGElement;
      while (svg.ownerSVGElement !== null) svg = svg.ownerSVGElement;
      container = svg;
    }
    while (
      container !== null &&
      ['inline', 'contents'].includes(getComputedStyle(container).display)
    ) {
      container = container.parentElement;
    }
    if (container === null) continue;
    const outer = container.getBoundingClientRect();
    if (box.left < outer.left - 1 || box.right > outer.right + 1) {
      const wrap = scroller(e);
      if (wrap !== null && wrap !== e) scrolling.add(wrap.querySelector('table')?.id ?? '?');
      else {
        problems.push(
          `${name(e)}: ${Math.round(box.left)}–${Math.round(box.right)} outside ${name(container)} ${Math.round(outer.left)}–${Math.round(outer.right)}`,
        );
      }
    }
    if (e instanceof HTMLElement && getComputedStyle(e).display !== 'inline') {
      const style = getComputedStyle(e);
      const cut = style.textOverflow === 'ellipsis' && style.overflowX === 'hidden';
      if (e.scrollWidth > e.clientWidth + 1 && !cut) {
        if (e.classList.contains('table-wrap') && style.overflowX === 'auto') {
          scrolling.add(e.querySelector('table')?.id ?? '?');
        } else if (scroller(e) === null) {
          problems.push(`${name(e)}: content ${e.scrollWidth} px in ${e.clientWidth} px`);
        }
      }
    }
  }
  return { problems: problems.slice(0, 20), scrollingTables: [...scrolling].sort() };
};

/** See `smallText` in browser-checks.ts. */
export const smallTextProbe = () => {
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const element = node.parentElement;
    if (element === null || (node.textContent ?? '').trim() === '') continue;
    if (!element.checkVisibility()) continue;
    let size = Number.parseFloat(getComputedStyle(element).fontSize);
    if (element instanceof SVGGraphicsElement) {
      const m = element.getScreenCTM();
      if (m !== null) size *= Math.min(Math.hypot(m.a, m.b), Math.hypot(m.c, m.d));
    }
    if (size < 11) small.push(`${size.toFixed(1)} px: ${(node.textContent ?? '').slice(0, 30)}`);
  }
  for (const cell of document.querySelectorAll('[data-label]')) {
    if (!cell.checkVisibility()) continue;
    const before = getComputedStyle(cell, '::before');
    if (before.content === 'none' || before.content === 'normal') continue;
    const size = Number.parseFloat(before.fontSize);
    if (size < 11) small.push(`${size.toFixed(1)} px: label ${cell.getAttribute('data-label')}`);
  }
  return small.slice(0, 20);
};

/** See `injected` in browser-checks.ts. */
export const injectedProbe = () => {
  const found = [];
  const tags =
    'img,iframe,object,embed,form,input,link,base,video,audio,frame,frameset,math,textarea,button:not(.sort),a:not([href^="#"]):not(.csv)';
  for (const e of document.querySelectorAll(tags)) found.push(e.outerHTML.slice(0, 60));
  if (document.scripts.length !== 1) found.push(`${document.scripts.length} scripts`);
  for (const e of document.querySelectorAll('*')) {
    for (const attribute of e.getAttributeNames()) {
      if (attribute.startsWith('on')) found.push(`${e.tagName} ${attribute}`);
    }
  }
  return found;
};

/** See `csvAndRows` in browser-checks.ts. */
export const csvProbe = () =>
  [...document.querySelectorAll('a.csv')].map((link) => {
    const table = document.getElementById(link.getAttribute('data-table') ?? '');
    const rows = table === null ? [] : [...table.querySelectorAll('tbody tr, tfoot tr')];
    // A phone shows the first rows of a long table until "show all": the CSV lists them all,
    // so the rows it is compared with are those the table shows once opened.
    const more = document.querySelector(`details.more[data-table="${table?.id}"]`);
    const closed = more !== null && !more.open;
    if (closed) more.open = true;
    const shown = rows.filter((row) => row.checkVisibility());
    if (closed) more.open = false;
    const cells = (row) => [...row.children];
    const header = cells(rows[0] ?? document.createElement('tr')).map(
      (cell) => cell.getAttribute('data-label') ?? '',
    );
    return {
      table: table?.id ?? '?',
      href: link.getAttribute('href') ?? '',
      shown: [header, ...shown.map((row) => cells(row).map((cell) => cell.textContent ?? ''))],
    };
  });

/** The computed `display` of the first element `selector` matches. */
export const displayProbe = (selector) => {
  const element = document.querySelector(selector);
  return element === null ? 'missing' : getComputedStyle(element).display;
};

/**
 * Where the parts of each bar label lie: a right-to-left name must stay
 * left of its `(company)` suffix, which isolation guarantees.
 */
export const barLabelProbe = () =>
  [...document.querySelectorAll('text.bar-label')]
    .filter((text) => text.checkVisibility() && text.querySelectorAll('tspan.iso').length === 2)
    .map((text) => {
      const [name, suffix] = text.querySelectorAll('tspan.iso');
      return {
        name: name.textContent,
        nameRight: name.getBoundingClientRect().right,
        suffixLeft: suffix.getBoundingClientRect().left,
      };
    });

/** Chart labels on one line that touch or overlap (they would run together). */
export const tickOverlapProbe = () => {
  const found = [];
  for (const svg of document.querySelectorAll('svg.chart')) {
    const rows = new Map();
    for (const text of svg.querySelectorAll('text.tick')) {
      if (!text.checkVisibility()) continue;
      const box = text.getBoundingClientRect();
      const key = Math.round(box.top);
      rows.set(key, [...(rows.get(key) ?? []), { box, label: text.textContent }]);
    }
    for (const labels of rows.values()) {
      labels.sort((a, b) => a.box.left - b.box.left);
      for (let i = 1; i < labels.length; i += 1) {
        if (labels[i].box.left < labels[i - 1].box.right + 4) {
          found.push(`${svg.id}: "${labels[i - 1].label}" and "${labels[i].label}"`);
        }
      }
    }
  }
  return found;
};

/**
 * What the templates table and the summary show now: the sum of the visible
 * rows' values in column `index`, the visible footer's value there, and the
 * visible summary's `sent`.
 */
export const shownTotalsProbe = (index) => {
  const visible = (e) => e.checkVisibility();
  const value = (row) => Number(row.children[index]?.getAttribute('data-value'));
  const rows = [...document.querySelectorAll('#templates-table tbody tr')].filter(visible);
  const footer = [...document.querySelectorAll('#templates-table tfoot tr')].filter(visible);
  const sent = [...document.querySelectorAll('[data-metric$="summary.sent"]')].filter(visible);
  return {
    rows: rows.reduce((sum, row) => sum + value(row), 0),
    footer: footer.length === 1 ? value(footer[0]) : Number.NaN,
    sent: sent.length === 1 ? Number(sent[0].getAttribute('data-value')) : Number.NaN,
  };
};

/**
 * The rows of the table `id` (all, and those that show), the height of its
 * section, and the page's: what a phone's "show all" control changes.
 */
export const listHeightProbe = (id) => {
  const table = document.getElementById(id);
  const rows = table === null ? [] : [...table.querySelectorAll('tbody tr')];
  return {
    rows: rows.length,
    shown: rows.filter((row) => row.checkVisibility()).length,
    section: table?.closest('section')?.getBoundingClientRect().height ?? 0,
    page: document.documentElement.scrollHeight,
  };
};
