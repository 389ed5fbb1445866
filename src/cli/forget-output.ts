/**
 * How `signfold forget` shows its report, for a file log and for PostgreSQL
 * alike: a few labelled lines, or the report as JSON.
 */

import { counted, plural } from '../core/plural.js';
import type { ForgetReport } from '../engine/forget-report.js';
import { type CliIO, writeJson, writeLines } from './cli-io.js';

const subjectText = (report: ForgetReport): string => {
  const parts = [
    ...report.participantIds.map((id) => `participant ${id}`),
    ...report.userIds.map((id) => `user ${id}`),
  ];
  if (report.typedNames > 0) parts.push(plural(report.typedNames, 'typed name'));
  const company = report.companyId === undefined ? '' : ` in company ${report.companyId}`;
  return `${parts.join(', ')}${company}`;
};

const countsText = (counts: Readonly<Record<string, number>>): string => {
  const changed = Object.entries(counts).filter(([, count]) => count > 0);
  return changed.length === 0
    ? 'nothing (no record holds a name of this person)'
    : changed.map(([place, count]) => `${place} ${count}`).join(', ');
};

/** Writes `report` to stdout, as text or (`json`) as one JSON document. */
export const writeForgetReport = (io: CliIO, report: ForgetReport, json: boolean): void => {
  if (json) {
    writeJson(io.stdout, report, 2);
    return;
  }
  const lines = [
    `${report.dryRun ? 'Would forget' : 'Forgot'}:  ${subjectText(report)}`,
    `Pseudonym:    ${report.pseudonym}${report.reused ? ' (of an earlier erasure of the same person)' : ''}`,
    `Names found:  ${report.foundNames}`,
    `${report.dryRun ? 'Would change' : 'Changed'}: ${countsText(report.counts)}`,
  ];
  if (!report.dryRun) lines.push(`Ledger:       erasure ${report.erasure}`);
  const same = report.sameNameParticipantIds;
  if (same.length > 0) {
    // Participant ids are per sign request: the same person's other requests hold the name under these.
    lines.push(
      `Same name:    ${counted(same.length, 'other participant')} (${same.join(', ')}) carry a name of this person; if they are this person, forget again with ${[...report.participantIds, ...same].map((id) => `--participant ${id}`).join(' ')} (or --name): the pseudonym is kept`,
    );
  }
  for (const note of report.notes) lines.push(`Note:         ${note}`);
  for (const place of report.remaining) lines.push(`Still holds a name: ${place}`);
  writeLines(io.stdout, lines);
};
