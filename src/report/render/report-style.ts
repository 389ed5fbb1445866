/**
 * The page's stylesheet, inlined: system fonts only (no web fonts), colours
 * as custom properties with a dark variant (`prefers-color-scheme`), a
 * phone layout (below 48rem, 768 px, tables stack, one labelled line per cell,
 * long tables show their first rows and a "show all" control) and a
 * print variant without the controls. No text is set below 12 px (legends,
 * captions, chart labels), so none renders under 11 px at any width: charts
 * draw their text unscaled (see `svg-chart.ts`).
 */
import { createHash } from 'node:crypto';
import { colourCss } from '../charts/chart-colours.js';
import { PHONE_ROWS } from './html-table.js';

const PHONE = '(max-width:48rem)';

/** The `<style>` content. */
export const REPORT_CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--panel:#f6f8fa;--accent:#0a66c2}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--line:#30363d;--panel:#161b22;--accent:#58a6ff}}
${colourCss()}*{box-sizing:border-box}
body{margin:0 auto;max-width:1280px;padding:1.5rem 1rem;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:break-word}
h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.25rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}h3{font-size:1.05rem;margin:1.25rem 0 .5rem}
p.note,.muted{color:var(--muted)}code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.75rem 0}a{color:var(--accent)}
.controls{margin:1rem 0;padding:.5rem .75rem;background:var(--panel);border:1px solid var(--line);border-radius:6px}
select{max-width:100%;font:inherit}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:.5rem;margin:.5rem 0}
.card{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.5rem .75rem}.card b{display:block;font-size:1.3rem}
.table-wrap{overflow-x:auto;margin:.5rem 0 0}
table{border-collapse:collapse;width:100%;font-size:13px}table.compact{width:auto;min-width:50%}caption{text-align:left;color:var(--muted);padding:.25rem 0}
th,td{padding:.25rem .3rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}td.n{white-space:nowrap}
td:not(.n):not(.name),tbody th:not(.n):not(.name){overflow-wrap:anywhere;min-width:5.5rem}p,li,caption,figcaption,.axis-title{overflow-wrap:anywhere}
thead th{background:var(--panel);position:sticky;top:0}#activity-table th,#activity-table td{padding:.25rem .2rem}tfoot th,tfoot td{font-weight:600}
tr.groups th{text-align:center;border-bottom:2px solid var(--line)}tr.groups td{border-bottom:0}
td.name>bdi,th.name>bdi{display:block;max-width:13rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
td:not(.name)>bdi:not([dir]):not(:has(code)),th:not(.name)>bdi:not([dir]):not(:has(code)){display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:4;overflow:hidden;max-width:22rem}
button.sort{all:unset;cursor:pointer;font-weight:600}button.sort::after{content:" ↕";color:var(--muted)}
th[aria-sort=ascending] button.sort::after{content:" ↑"}th[aria-sort=descending] button.sort::after{content:" ↓"}
button.sort:focus-visible{outline:2px solid var(--accent)}
.table-tools{margin:.25rem 0 1rem;font-size:13px}.rest{margin-top:-.75rem}
figure{margin:.5rem 0 1rem}figcaption{color:var(--muted);font-size:13px}
.chart-box{display:flex;align-items:flex-start}.chart-box svg.chart{flex:1 1 auto;min-width:0}svg.y-axis{flex:none;display:block}
.axis-title{color:var(--muted);font-size:12px}.axis-title.x{text-align:center}
svg.chart{width:100%;display:block}svg .tick,svg .axis-title{fill:var(--muted);font-size:12px}
svg .grid{stroke:var(--line);stroke-width:1}svg .axis{stroke:var(--muted);stroke-width:1}svg .line{fill:none;stroke-width:2}
svg text.end{text-anchor:end}svg text.mid{text-anchor:middle}svg .iso{unicode-bidi:isolate}
svg .bar-label{fill:var(--fg);font-size:12px}svg .value{fill:var(--muted);font-size:12px}
.legend{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1rem;padding:0;margin:.25rem 0;font-size:13px}
.sw{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-1px;border-radius:2px}
.sw.line-sw{height:.2rem;vertical-align:3px}
.narrow-only{display:none}
.banner{margin:.5rem 0 1rem;padding:.6rem .8rem;border:2px solid var(--k-open,#c07a00);border-radius:6px;background:var(--panel);font-weight:600}.banner .muted{font-weight:400}
details.more{display:none}details.more summary{cursor:pointer;color:var(--accent);font-size:13px;padding:.25rem 0}
details.more[open] .closed,details.more:not([open]) .open{display:none}
details.fold summary{cursor:pointer;color:var(--accent);font-size:13px;padding:.25rem 0}.missed p{margin:.25rem 0}p.command code{overflow-wrap:anywhere}
[hidden]{display:none!important}
@media ${PHONE}{body{padding:.75rem .6rem;font-size:14px}
.wide-only{display:none}.narrow-only{display:inline}
table,thead,tbody,tfoot,tr,td,th,caption{display:block;width:auto}table.compact{min-width:0}
thead{display:none}td:not(.n):not(.name),tbody th:not(.n):not(.name){min-width:0}
tr{display:grid;grid-template-columns:repeat(auto-fill,minmax(6.5rem,1fr));grid-auto-flow:row dense;gap:.3rem .75rem;border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.4rem .6rem}
tbody th,tbody td,tfoot th,tfoot td{display:block;border:0;padding:0;text-align:left;white-space:normal;min-width:0}
tbody>tr>:first-child:not(.n),tfoot>tr>:first-child:not(.n),tbody td:not(.n):not(.s),tfoot td:not(.n):not(.s){grid-column:1/-1}
[data-label]::before{content:attr(data-label);display:block;color:var(--muted);font-size:12px;font-weight:400}
td>bdi,th>bdi{max-width:none}tbody td.n,tfoot td.n,tbody th.n,tfoot th.n{text-align:left;white-space:normal}
.table-wrap{overflow:visible}}
@media screen and ${PHONE}{details.more{display:block}
.table-wrap:has(+details.more:not([open])) tbody>tr:nth-child(n+${PHONE_ROWS + 1} of :not([hidden])){display:none}}
@media print{details.fold::details-content{content-visibility:visible;display:block}details.fold>summary{display:none}
body{max-width:none;padding:0;font-size:11pt}.controls,nav,.table-tools,details.more,button.sort::after{display:none}
thead th{position:static}section,figure,tr{break-inside:avoid}a{color:inherit;text-decoration:none}}
`;

/** The CSP source that allows exactly this stylesheet. */
export const REPORT_STYLE_HASH = `'sha256-${createHash('sha256').update(REPORT_CSS).digest('base64')}'`;
