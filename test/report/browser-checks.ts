/**
 * What the browser tests check on any report page, at any width and scheme:
 * nothing wider than its container, no text under 11 px, nothing injected,
 * and every CSV link equal to the rows its table shows.
 */
import type { Page } from 'playwright-core';
import { csvOfDataUrl, parseCsv } from './csv-reading.js';

/** The viewports and schemes every page is checked at. */
export const VIEWS = [
  { width: 1280, scheme: 'light' },
  { width: 1280, scheme: 'dark' },
  { width: 390, scheme: 'light' },
  { width: 390, scheme: 'dark' },
] as const;

/** What overflows, and which table wrappers scroll (allowed: they are meant to). */
export interface Layout {
  readonly problems: readonly string[];
  readonly scrollingTables: readonly string[];
}

/**
 * Every visible element against its container (the nearest block ancestor;
 * for SVG content, the outer `<svg>`): its box within the container's, and
 * its content within its own box (`scrollWidth`), except text cut on purpose
 * with an ellipsis and tables in a `.table-wrap` that scrolls sideways.
 */
export const layoutOf = (page: Page): Promise<Layout> =>
  page.evaluate(() => {
    const name = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.getAttribute('class') ? `.${e.getAttribute('class')?.replaceAll(' ', '.')}` : ''} "${(e.textContent ?? '').slice(0, 30)}"`;
    const problems: string[] = [];
    const scrolling = new Set<string>();
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) {
      problems.push(`the page scrolls sideways: ${root.scrollWidth} > ${root.clientWidth}`);
    }
    const scroller = (e: Element): HTMLElement | null => {
      const wrap = e.closest('.table-wrap');
      return wrap instanceof HTMLElement && getComputedStyle(wrap).overflowX === 'auto'
        ? wrap
        : null;
    };
    for (const e of document.body.querySelectorAll('*')) {
      if (!e.checkVisibility()) continue;
      const box = e.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      let container: Element | null = e.parentElement;
      if (e instanceof SVGElement && e.ownerSVGElement !== null) {
        let svg: SVGSVGElement = e.ownerSVGElement;
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
        else
          problems.push(
            `${name(e)}: ${Math.round(box.left)}–${Math.round(box.right)} outside ${name(container)} ${Math.round(outer.left)}–${Math.round(outer.right)}`,
          );
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
  });

/**
 * Text rendered under 11 px: the computed size of every visible text node's
 * element (times the SVG scale for chart text), and of the labels the
 * phone layout draws before cells.
 */
export const smallText = (page: Page): Promise<string[]> =>
  page.evaluate(() => {
    const small: string[] = [];
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
  });

/** Elements or attributes that only markup from the log could have put in the page. */
export const injected = (page: Page): Promise<string[]> =>
  page.evaluate(() => {
    const found: string[] = [];
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
  });

/** One table's CSV against the rows it shows: the parsed CSV, and the cells' text. */
export interface CsvAndRows {
  readonly table: string;
  readonly csv: string[][];
  readonly shown: string[][];
}

/** Every CSV link of the page, parsed, beside the header and rows its table shows (in order). */
export const csvAndRows = async (page: Page): Promise<CsvAndRows[]> => {
  const found = await page.$$eval('a.csv', (links) =>
    links.map((link) => {
      const table = document.getElementById(link.getAttribute('data-table') ?? '');
      const rows = table === null ? [] : [...table.querySelectorAll('tbody tr, tfoot tr')];
      const shown = rows.filter((row) => row instanceof HTMLElement && row.checkVisibility());
      const cells = (row: Element) => [...row.children];
      const header = cells(rows[0] ?? document.createElement('tr')).map(
        (cell) => cell.getAttribute('data-label') ?? '',
      );
      return {
        table: table?.id ?? '?',
        href: link.getAttribute('href') ?? '',
        shown: [header, ...shown.map((row) => cells(row).map((cell) => cell.textContent ?? ''))],
      };
    }),
  );
  return found.map(({ table, href, shown }) => ({
    table,
    shown,
    // A spreadsheet would show a neutralised formula without its quote.
    csv: parseCsv(csvOfDataUrl(href)).map((fields) =>
      fields.map((f) => (/^'[=+\-@\t\r]/.test(f) ? f.slice(1) : f)),
    ),
  }));
};
