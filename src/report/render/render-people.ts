/**
 * The people section: the template figures per sender and per owner (the
 * user ids and names that sign-request events carry, `senderId` /
 * `senderName` and `ownerId` / `ownerName`), so a lead sees whose requests
 * are behind.
 */

import { formatCount, formatDuration, formatRate } from '../html-text.js';
import type { PeopleModel, PersonRow } from '../model/summary-model.js';
import { type Cell, idCell, nameCell, num, type Row, renderTable } from './html-table.js';

const rate = (value: number | undefined): Cell => ({
  text: formatRate(value),
  value: value ?? -1,
});

const rowOf = (p: PersonRow): Row => {
  const f = p.figures;
  const n = (value: number) => num(value, formatCount(value));
  return {
    company: p.companyId,
    cells: [
      nameCell(p.name),
      idCell(p.userId),
      idCell(p.companyId),
      n(f.sent),
      n(f.completed),
      n(f.declined),
      n(f.open),
      n(f.stuck),
      rate(f.completedOfSent),
      rate(f.completedOfFinished),
      f.medianCompleteMs === undefined
        ? { text: '–', value: -1 }
        : num(f.medianCompleteMs, formatDuration(f.medianCompleteMs)),
    ],
  };
};

const table = (id: string, who: string, rows: readonly PersonRow[]): string =>
  renderTable({
    id,
    caption: `Per ${who} (by user id within a company; the name of their latest request): requests sent in the period and what became of them. The median time to complete is of completed requests only. Most requests first; click a header to sort.`,
    groups: [
      { label: '', span: 3 },
      { label: 'requests', span: 5 },
      { label: 'completed', span: 2 },
      { label: '', span: 1 },
    ],
    columns: [
      who,
      'user id',
      'company',
      'sent',
      'completed',
      'declined',
      'open',
      'stuck',
      'of sent',
      'of finished',
      'median time to complete',
    ],
    rows: rows.map(rowOf),
    sortable: true,
  });

/** The section. */
export const renderPeople = (people: PeopleModel): string => {
  if (people.senders.length === 0 && people.owners.length === 0) {
    return '<section id="people"><h2>People</h2><p class="muted">No sign request names a sender or an owner.</p></section>';
  }
  return `<section id="people"><h2>People: senders and owners</h2>
<p class="note">The sender is who sent the request (<code>senderId</code>, <code>senderName</code>), the owner who owns it (<code>ownerId</code>, <code>ownerName</code>), as the request's latest applied event named them.</p>
<h3>Senders</h3>
${table('senders-table', 'sender', people.senders)}
<h3>Owners</h3>
${table('owners-table', 'owner', people.owners)}
</section>`;
};
