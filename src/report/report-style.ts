/**
 * The page's stylesheet, inlined: system fonts only (no web fonts), colours
 * as custom properties with a dark variant (`prefers-color-scheme`), and a
 * print variant without the controls.
 */
import { createHash } from 'node:crypto';

/** The `<style>` content. */
export const REPORT_CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--panel:#f6f8fa;--accent:#0a66c2;
--c0:#4e79a7;--c1:#f28e2b;--c2:#59a14f;--c3:#e15759;--c4:#76b7b2;--c5:#edc948;--c6:#b07aa1;--c7:#ff9da7;--c8:#9c755f;--c9:#bab0ac;--c10:#2f4b7c;--c11:#a05195}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--line:#30363d;--panel:#161b22;--accent:#58a6ff;
--c0:#6e9bd1;--c1:#ffa64d;--c2:#7cc26f;--c3:#ff7b7d;--c4:#8fd3cd;--c5:#f5d76e;--c6:#c99ac0;--c7:#ffb3bb;--c8:#c49a80;--c9:#d0c8c4;--c10:#7f9fd6;--c11:#d07fc4}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1100px;padding:1.5rem;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.25rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}h3{font-size:1.05rem;margin:1.25rem 0 .5rem}
p.note,.muted{color:var(--muted)}code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.75rem 0}a{color:var(--accent)}
.controls{margin:1rem 0;padding:.5rem .75rem;background:var(--panel);border:1px solid var(--line);border-radius:6px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:.5rem;margin:.5rem 0}
.card{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.5rem .75rem}.card b{display:block;font-size:1.3rem}
.table-wrap{overflow-x:auto;margin:.5rem 0 1rem}
table{border-collapse:collapse;width:100%;font-size:14px}table.compact{width:auto;min-width:50%}caption{text-align:left;color:var(--muted);padding:.25rem 0}
th,td{padding:.25rem .5rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
thead th{background:var(--panel);position:sticky;top:0}tfoot th,tfoot td{font-weight:600}
button.sort{all:unset;cursor:pointer;font-weight:600}button.sort::after{content:" ↕";color:var(--muted)}
th[aria-sort=ascending] button.sort::after{content:" ↑"}th[aria-sort=descending] button.sort::after{content:" ↓"}
button.sort:focus-visible{outline:2px solid var(--accent)}
figure{margin:.5rem 0 1rem}figcaption{color:var(--muted);font-size:13px}
svg.chart{width:100%;height:auto;display:block}svg .tick{fill:var(--muted);font-size:11px}svg .tick.y{text-anchor:end}svg .tick.x{text-anchor:middle}
svg .grid{stroke:var(--line);stroke-width:1}
.legend{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1rem;padding:0;margin:.25rem 0;font-size:13px}
.sw{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-1px;border-radius:2px}
${Array.from({ length: 12 }, (_, i) => `.c${i}{fill:var(--c${i});background:var(--c${i})}`).join('')}
[hidden]{display:none!important}
@media print{body{max-width:none;padding:0;font-size:11pt}.controls,nav,button.sort::after{display:none}
thead th{position:static}section,figure,tr{break-inside:avoid}a{color:inherit;text-decoration:none}}
`;

/** The CSP source that allows exactly this stylesheet. */
export const REPORT_STYLE_HASH = `'sha256-${createHash('sha256').update(REPORT_CSS).digest('base64')}'`;
