/**
 * Renders a {@link ReportModel} as one self-contained HTML page: pure (a model
 * in, a string out), deterministic (no time stamp but the model's "now", no
 * randomness), offline
 * (no external resource; a Content-Security-Policy forbids any request and
 * any script but the page's own), every string from the log escaped.
 */
import { countedText, escapeHtml } from './html-text.js';
import type { ReportModel } from './model/report-model.js';
import { renderActivity } from './render/render-activity.js';
import { renderCompanies, renderCompanyFilter } from './render/render-companies.js';
import { renderStuck } from './render/render-lists.js';
import { renderOverview } from './render/render-overview.js';
import { renderPeople } from './render/render-people.js';
import { renderQuarantine } from './render/render-quarantine.js';
import { renderStaleBanner, renderSummary } from './render/render-summary.js';
import { renderTemplates } from './render/render-templates.js';
import { renderTimings } from './render/render-timings.js';
import { REPORT_SCRIPT, REPORT_SCRIPT_HASH } from './render/report-script.js';
import { REPORT_CSS, REPORT_STYLE_HASH } from './render/report-style.js';

const NAV: readonly (readonly [string, string])[] = [
  ['overview', 'Overview'],
  ['companies', 'Companies'],
  ['templates', 'Templates'],
  ['people', 'People'],
  ['timings', 'Timings'],
  ['activity', 'Activity'],
  ['stuck', 'Open and stuck'],
  ['quarantine', 'Quarantine'],
];

/** The page of `model`. */
export const renderReport = (model: ReportModel): string => {
  const csp = `default-src 'none'; style-src ${REPORT_STYLE_HASH}; script-src ${REPORT_SCRIPT_HASH}; img-src data:; base-uri 'none'; form-action 'none'`;
  const nav = NAV.filter(([id]) => id !== 'companies' || model.companies.length > 1)
    .map(([id, label]) => `<a href="#${id}">${label}</a>`)
    .join('');
  const log = escapeHtml(model.log);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="signfold report">
<title>signfold report: ${log}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<header><h1>signfold report</h1><p class="muted">Log <code>${log}</code>: ${countedText(model.overview.processed, 'record')}.</p></header>
<nav aria-label="Sections">${nav}</nav>
${renderCompanyFilter(model.companies)}
<main>
${renderStaleBanner(model.summary)}${renderSummary(model.summary)}
${renderOverview(model.overview)}
${renderCompanies(model.companies)}
${renderTemplates(model.templates)}
${renderPeople(model.people)}
${renderTimings(model.timings)}
${renderActivity(model.activity, model.trend, model.stuck.asOf, model.trendByCompany)}
${renderStuck(model.stuck, model.summary)}
${renderQuarantine(model.quarantine)}
</main>
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`;
};
