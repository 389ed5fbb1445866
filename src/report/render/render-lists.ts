/**
 * The stuck section: open requests by age (all of them, not only the stuck),
 * and the stuck ones, oldest first, with what to do about each: who sent
 * it, when anything last happened, who is awaited since when, and a flag
 * where every participant signed but no completion arrived (a lost webhook
 * to reconcile). Sentences and ages exist once per company (`data-scope`).
 */

import { plural } from '../../core/plural.js';
import { countedText, escapeHtml, formatCount, formatDuration } from '../html-text.js';
import type { StuckModel, StuckRequest } from '../model/report-model.js';
import { reconcileCommandLine } from '../model/stuck-requests.js';
import { AGE_BUCKETS, type ScopedFigures, type SummaryModel } from '../model/summary-model.js';
import { type Cell, isolated, nameCell, num, type Row, renderTable } from './html-table.js';

/** How many ids of a list of requests show before the rest folds. */
export const SHOWN_IDS = 10;

/** The anchor of a scope's requests fully signed without a completion. */
export const missedAnchor = (s: ScopedFigures): string =>
  s.companyId === null ? 'missed-completions' : `missed-completions-${s.companyId}`;

const scopeName = (s: ScopedFigures): string =>
  s.companyId === null ? 'all' : String(s.companyId);

const scopeAttributes = (s: ScopedFigures): string =>
  ` data-scope="${scopeName(s)}"${s.companyId === null ? '' : ' hidden'}`;

const sentence = (stuck: StuckModel, s: ScopedFigures): string => {
  const f = s.figures;
  const metric = s.companyId === null ? 'stuck.total' : `company.${s.companyId}.stuck.total`;
  const whose = s.companyId === null ? '' : ` of company ${s.companyId}`;
  return `<p class="note"${scopeAttributes(s)}><span data-metric="${metric}" data-value="${f.stuck}">${formatCount(f.stuck)}</span> of ${countedText(f.open, 'open request')}${whose} ${plural(f.stuck, 'was', 'were')} <code>sent</code> more than ${escapeHtml(formatDuration(stuck.thresholdMs))} ago without a final event, as of “now”, ${escapeHtml(stuck.asOf ?? '–')}.</p>`;
};

/** `<details>` that folds `content` under `summary`, closed; it needs no script. */
const fold = (summary: string, content: string, what: string): string =>
  `<details class="fold" data-fold="${what}"><summary>${summary}</summary>${content}</details>`;

/**
 * The open requests of a scope that have every participant signed but no
 * completion (a lost delivery): their ids, the first {@link SHOWN_IDS} shown
 * and the rest folded, and the `signfold reconcile` command line that asks
 * the service's API about them, folded too when it names more ids than that.
 * Only numbers and the command's words (escaped) go into it.
 */
const missedCompletions = (stuck: StuckModel, s: ScopedFigures): string => {
  if (s.allSigned === 0) return '';
  const whose = s.companyId === null ? '' : ` of company ${s.companyId}`;
  const ids = s.allSignedIds;
  const shown = ids.slice(0, SHOWN_IDS);
  const rest = ids.slice(SHOWN_IDS);
  const list =
    rest.length === 0
      ? `<p class="ids">Requests ${shown.join(', ')}.</p>`
      : `<p class="ids">Requests ${shown.join(', ')}, …</p>${fold(
          `${countedText(rest.length, 'more request')}`,
          `<p class="ids">${rest.join(', ')}</p>`,
          'ids',
        )}`;
  const unlisted =
    s.allSigned > ids.length
      ? `<p class="note">The first ${formatCount(ids.length)} by id are listed; make the report again once they are repaired for the other ${formatCount(s.allSigned - ids.length)}.</p>`
      : '';
  const command = `<p class="command"><code>${escapeHtml(reconcileCommandLine(stuck.source, ids))}</code></p>`;
  const how = `Ask the service's API about ${ids.length === 1 ? 'it' : 'them'} and append what it says with <code>signfold reconcile</code>, <code>MODULE</code> being your fetch module (docs/cli.md, reconcile)`;
  const repair =
    ids.length <= SHOWN_IDS
      ? `<p class="note">${how}:</p>${command}`
      : `<p class="note">${how}.</p>${fold(`The command for these ${formatCount(ids.length)} requests`, command, 'command')}`;
  return `<div class="missed" id="${missedAnchor(s)}"${scopeAttributes(s)}><p class="note"><strong class="flag">${countedText(s.allSigned, 'open request')}${whose} ${plural(s.allSigned, 'has', 'have')} every participant signed but no <code>sign-request-completed</code></strong>: a missed webhook.</p>${list}${unlisted}${repair}</div>`;
};

const ageTable = (summary: SummaryModel): string =>
  renderTable({
    id: 'open-ages-table',
    caption:
      'Open requests by time since sent (all open requests of the period, stuck or not), as of “now”',
    columns: ['', ...AGE_BUCKETS.map((b) => b.label), 'open'],
    compact: true,
    rows: summary.scopes.map(
      (s): Row => ({
        scope: scopeName(s),
        cells: [
          { text: s.companyId === null ? 'all' : `company ${s.companyId}` },
          ...s.openByAge.map((n, i) =>
            num(
              n,
              formatCount(n),
              `${s.companyId === null ? '' : `company.${s.companyId}.`}openByAge.${i}`,
            ),
          ),
          num(s.figures.open, formatCount(s.figures.open)),
        ],
      }),
    ),
  });

/** A time to the minute, UTC (the whole of it sorts the column: `data-value`). */
const minute = (iso: string): string => iso.slice(0, 16).replace('T', ' ');

/** `(5, viewed since 2025-03-03 09:02)`: the CSV says what the cell shows. */
const awaitedSince = (p: StuckRequest['awaiting'][number]): string =>
  `(${p.id}, ${p.status} since ${p.since?.slice(0, 16).replace('T', ' ') ?? 'unknown'})`;

const awaitingCell = (r: StuckRequest): Cell => {
  if (r.awaiting.length === 0) return { text: '–' };
  return {
    html: true,
    text: r.awaiting.map((p) => `${isolated(p.name)} ${escapeHtml(awaitedSince(p))}`).join(', '),
    csv: r.awaiting.map((p) => `${p.name} ${awaitedSince(p)}`).join(', '),
  };
};

const flagCell = (r: StuckRequest): Cell =>
  r.allSigned
    ? {
        html: true,
        value: 1,
        // Short, so the row stays low: the section's sentence says what to do.
        text: '<strong class="flag">all signed, not completed</strong>',
      }
    : { text: '–', value: 0 };

/** The stuck-requests section. */
export const renderStuck = (stuck: StuckModel, summary: SummaryModel): string => {
  if (stuck.asOf === undefined) {
    const missed = summary.scopes.map((s) => missedCompletions(stuck, s)).join('');
    return `<section id="stuck"><h2>Open and stuck requests</h2><p class="muted">No event has a <code>receivedAt</code>: ages and stuck requests cannot be told.</p>${missed}</section>`;
  }
  const intro = summary.scopes
    .map((s) => `${sentence(stuck, s)}${missedCompletions(stuck, s)}`)
    .join('');
  const ages = ageTable(summary);
  if (stuck.total === 0)
    return `<section id="stuck"><h2>Open and stuck requests</h2>${intro}\n${ages}</section>`;
  const table = renderTable({
    id: 'stuck-table',
    caption:
      'Stuck requests, oldest first: who sent them, when anything last happened, who is awaited since when',
    total: stuck.total,
    groups: [
      { label: 'request', span: 4 },
      { label: 'sent', span: 3 },
      { label: '', span: 4 },
    ],
    columns: [
      'id',
      'name',
      'company',
      'template',
      'by',
      'at',
      'age',
      'last activity',
      'awaiting (since)',
      'flag',
      'inspect',
    ],
    rows: stuck.listed.map((r) => ({
      company: r.companyId,
      cells: [
        num(r.id, String(r.id)),
        nameCell(r.name),
        r.companyId === null ? { text: '–' } : num(r.companyId, String(r.companyId)),
        r.templateName === undefined ? { text: '–' } : nameCell(r.templateName),
        r.senderName === undefined
          ? { text: '–' }
          : nameCell(`${r.senderName} (${r.senderId ?? '–'})`),
        { text: minute(r.sentAt), value: r.sentAt },
        num(r.ageMs, formatDuration(r.ageMs)),
        r.lastActivity === undefined
          ? { text: '–', value: '' }
          : { text: minute(r.lastActivity), value: r.lastActivity },
        awaitingCell(r),
        flagCell(r),
        // In a <bdi>, so the page clamps a long command to a few lines like any text.
        { text: `<bdi><code>${escapeHtml(r.inspectCommand)}</code></bdi>`, html: true },
      ],
    })),
    sortable: true,
  });
  return `<section id="stuck"><h2>Open and stuck requests</h2>${intro}\n${ages}\n${table}\n</section>`;
};
