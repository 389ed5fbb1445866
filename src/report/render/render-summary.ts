/**
 * The summary strip at the top of the page: the period, what was sent and
 * became of it, what is open and stuck now, how long completing takes, and
 * what broke in ingestion. One block for all companies and one per company;
 * the company filter shows the block of the company chosen (`data-scope`).
 */
import { plural } from '../../core/plural.js';
import { countedText, escapeHtml, formatCount, formatDuration, formatRate } from '../html-text.js';
import type { AsOfBasis, ScopedFigures, SummaryModel } from '../model/summary-model.js';
import { missedAnchor } from './render-lists.js';

/** How many ids of the requests fully signed without a completion a card names. */
const CARD_IDS = 3;

/**
 * A card. Counts are `data-metric` (their text is the number); rates and
 * durations are `data-figure`, their raw value in `data-value`.
 */
const card = (
  label: string,
  value: string,
  metric: string,
  raw: number,
  note = '',
  kind: 'metric' | 'figure' = 'metric',
): string =>
  `<div class="card"><span class="muted">${escapeHtml(label)}</span><b data-${kind}="${metric}" data-value="${raw}">${escapeHtml(value)}</b>${note === '' ? '' : `<small class="muted">${note}</small>`}</div>`;

const day = (iso: string | undefined): string =>
  iso === undefined ? '–' : iso.slice(0, 16).replace('T', ' ');

/** What "now" is, by why it is that time (see `AsOfBasis`). */
const NOW_BASIS: Readonly<Record<AsOfBasis, (given: boolean) => string>> = {
  now: (given) => (given ? 'the time given by <code>--now</code>' : 'when this report was made'),
  'period-end': () => 'the end of the period',
  // Only when the log holds a time later than "now": an age must never be negative.
  latest: () => 'the latest <code>receivedAt</code> read (later than the clock of the report)',
};

/**
 * The warning at the top of the page when nothing was received for longer
 * than `--stale-after` before "now": a pipeline that stopped receiving must
 * not look healthy. Only times the report formats itself go into it (no
 * string from the log), escaped all the same.
 */
export const renderStaleBanner = (summary: SummaryModel): string => {
  const silent = summary.silentMs;
  if (silent === undefined || summary.lastDelivery === undefined) return '';
  if (silent <= summary.staleAfterMs) return '';
  const last = escapeHtml(day(summary.lastDelivery));
  const asOf = escapeHtml(day(summary.asOf));
  const gap = escapeHtml(formatDuration(silent));
  const threshold = escapeHtml(formatDuration(summary.staleAfterMs));
  const text =
    summary.asOfBasis === 'period-end'
      ? `No delivery in the last ${gap} of the period: the last one arrived at <time>${last}</time> UTC, and the period ends at <time>${asOf}</time> UTC.`
      : `No delivery for ${gap}: the last one arrived at <time>${last}</time> UTC, and “now” is <time>${asOf}</time> UTC. Is the webhook server still receiving?`;
  return `<p class="banner" id="stale-banner" role="status" data-value="${silent}">${text} <span class="muted">(Shown after more than ${threshold} without one: <code>--stale-after</code>.)</span></p>`;
};

/** The period line: what was asked for and what the events in it span (UTC). */
const periodLine = (summary: SummaryModel): string => {
  const asked =
    summary.from === undefined && summary.to === undefined
      ? 'the whole log'
      : `${summary.from === undefined ? 'the start' : `<time>${day(summary.from)}</time>`} up to ${summary.to === undefined ? 'the end of the log' : `<time>${day(summary.to)}</time> (excluded)`}`;
  const span =
    summary.first === undefined
      ? 'no event in it has a <code>receivedAt</code>'
      : `events received <time data-figure="summary.first">${day(summary.first)}</time> – <time data-figure="summary.last">${day(summary.last)}</time> UTC`;
  const now = `; “now” is ${NOW_BASIS[summary.asOfBasis](summary.asOfGiven)}, <time data-figure="summary.asOf">${day(summary.asOf)}</time> UTC${
    summary.lastDelivery === undefined
      ? ''
      : `, and the last delivery arrived <time data-figure="summary.lastDelivery">${day(summary.lastDelivery)}</time> UTC`
  }`;
  return `<p class="note">Period: ${asked}; ${span}${now}. Requests count when <em>sent</em> in the period; statuses are those at its end.</p>`;
};

const block = (summary: SummaryModel, scope: ScopedFigures, index: number): string => {
  const f = scope.figures;
  const name = scope.companyId === null ? 'all' : String(scope.companyId);
  // One name per figure in the page: a company's are prefixed with it.
  const m = (metric: string): string =>
    scope.companyId === null ? metric : `company.${scope.companyId}.${metric}`;
  const stuckNote =
    f.stuck === 0
      ? `none open longer than ${escapeHtml(formatDuration(summary.stuckAfterMs))}`
      : `oldest open <span data-figure="${m('summary.oldestOpenMs')}" data-value="${f.oldestOpenMs ?? 0}">${escapeHtml(formatDuration(f.oldestOpenMs))}</span>; open longer than ${escapeHtml(formatDuration(summary.stuckAfterMs))}`;
  const firstIds = scope.allSignedIds.slice(0, CARD_IDS).join(', ');
  const signedNote =
    scope.allSigned === 0
      ? ''
      : `; <a href="#${missedAnchor(scope)}">${formatCount(scope.allSigned)} fully signed without a completion</a> (${firstIds}${scope.allSigned > CARD_IDS ? ', …' : ''}): <code>signfold reconcile</code>`;
  const cards = [
    card('sent', formatCount(f.sent), m('summary.sent'), f.sent),
    card(
      'completed of sent',
      formatRate(f.completedOfSent),
      m('summary.completedOfSent'),
      f.completedOfSent ?? -1,
      `${formatCount(f.completed)} completed, ${formatCount(f.declined)} declined`,
      'figure',
    ),
    card(
      'open now',
      formatCount(f.open),
      m('summary.open'),
      f.open,
      `not completed nor declined${signedNote}`,
    ),
    card('stuck now', formatCount(f.stuck), m('summary.stuck'), f.stuck, stuckNote),
    card(
      'median time to complete',
      formatDuration(f.medianCompleteMs),
      m('summary.medianCompleteMs'),
      f.medianCompleteMs ?? -1,
      `of ${formatCount(f.timed)} completed; open requests not included`,
      'figure',
    ),
    card(
      'ingestion problems',
      formatCount(summary.badLines + summary.invalidEvents),
      m('summary.ingestion'),
      summary.badLines + summary.invalidEvents,
      // Conflicts are delivered and well-formed, so not an ingestion problem: named beside it.
      `${countedText(summary.badLines, 'bad line')}, ${countedText(summary.invalidEvents, 'invalid event')}. Not counted here: <a href="#quarantine"><span data-metric="${m('summary.conflicts')}" data-value="${summary.conflicts}">${formatCount(summary.conflicts)}</span> ${plural(summary.conflicts, 'conflict')}</a> (all companies). <span data-metric="${m('summary.repairs')}" data-value="${summary.repairs}">${formatCount(summary.repairs)}</span> ${plural(summary.repairs, 'request')} repaired from the service's API.`,
    ),
  ];
  const hidden = index === 0 ? '' : ' hidden';
  return `<div class="cards summary" data-scope="${name}"${hidden}>${cards.join('')}</div>`;
};

/** The strip; the first block (all companies) is the one shown without the filter. */
export const renderSummary = (summary: SummaryModel): string =>
  `<section id="summary" aria-label="Summary">${periodLine(summary)}${summary.scopes
    .map((scope, index) => block(summary, scope, index))
    .join('\n')}</section>`;
