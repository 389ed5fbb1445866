/**
 * What `signfold replay` prints: a readable summary, or (with `--json`) the
 * full projections. The JSON carries no timing, so two replays of the same
 * log print the same bytes.
 */

import { counted } from '../../core/plural.js';
import {
  countProjections,
  type ProjectionCounts,
} from '../../core/projections/projection-counts.js';
import {
  listParticipants,
  listSignRequests,
  listTemplates,
} from '../../core/projections/projection-state.js';
import type { Projector } from '../../engine/projector.js';
import type { Halted } from '../../engine/projector-types.js';
import {
  describeEntry,
  describeSplit,
  LISTED_QUARANTINE,
  splitQuarantine,
} from '../quarantine-format.js';
import type { ReplayRun } from '../sources/replay-log.js';

/** Everything a replay report is made of. */
export interface ReplayReport {
  readonly log: string;
  readonly projector: Projector;
  readonly run: ReplayRun;
  readonly until: number | undefined;
  /** The snapshot restored before replaying, and its checkpoint. */
  readonly restored: { readonly path: string; readonly checkpoint: number } | undefined;
  /** The snapshot written after replaying. */
  readonly written: string | undefined;
}

/** The halt, if the replay stopped at a bad record. */
const haltOf = (report: ReplayReport): Halted | undefined =>
  report.run.result.isErr() ? report.run.result.error : undefined;

const countsLine = (counts: Readonly<Record<string, number>>): string => {
  const { total, ...byStatus } = counts;
  const parts = Object.entries(byStatus).map(([status, n]) => `${status} ${n}`);
  return `${total} (${parts.join(', ')})`;
};

/** `label:` padded so the values line up. */
const row = (label: string, value: string): string => `${`${label}:`.padEnd(15)} ${value}`;

/** The readable summary, one string per line. */
export const formatSummary = (report: ReplayReport): string[] => {
  const { projector, run } = report;
  const stats = projector.stats();
  // Counting needs no published (frozen) state: publishing would cost more than the count.
  const counts: ProjectionCounts = projector.peekState(countProjections);
  const quarantine = projector.quarantine();
  const split = splitQuarantine(quarantine);
  const lines = [row('Log', report.log)];
  if (report.restored !== undefined) {
    lines.push(
      row('From snapshot', `${report.restored.path} (checkpoint ${report.restored.checkpoint})`),
    );
  }
  if (report.until !== undefined) lines.push(row('Until', `position ${report.until}`));
  const again = stats.alreadyApplied > 0 ? `, ${stats.alreadyApplied} already applied` : '';
  lines.push(
    row(
      'Events',
      `${run.processed} processed (${stats.applied} applied, ${counted(stats.noOps, 'no-op')}, ` +
        `${counted(stats.conflicts, 'conflict')}, ${stats.invalid} invalid${again})`,
    ),
    row('Templates', countsLine(counts.templates)),
    row('Sign requests', countsLine(counts.signRequests)),
    row('Participants', countsLine(counts.participants)),
    row('Quarantined', `${quarantine.length} (${describeSplit(split)})`),
  );
  for (const entry of quarantine.slice(0, LISTED_QUARANTINE))
    lines.push(`  ${describeEntry(entry)}`);
  if (quarantine.length > LISTED_QUARANTINE) {
    lines.push(
      `  … and ${quarantine.length - LISTED_QUARANTINE} more (see --json or signfold check)`,
    );
  }
  const tail = projector.incompleteTail();
  if (tail !== undefined) {
    lines.push(
      row(
        'Incomplete last line',
        `line ${tail.line} (not applied; a writer may still be appending, or a write was cut short)`,
      ),
    );
  }
  const halted = haltOf(report);
  if (halted !== undefined) lines.push(row('Halted', `at ${describeEntry(halted)}`));
  lines.push(row('Checkpoint', String(projector.checkpoint)));
  if (report.written !== undefined) lines.push(row('Snapshot', `written to ${report.written}`));
  const seconds = run.elapsedMs / 1000;
  const rate = Math.round(run.processed / Math.max(seconds, 0.001));
  lines.push(row('Elapsed', `${seconds.toFixed(3)} s (${rate} events/s)`));
  return lines;
};

/** The `--json` document: projections, quarantine, counters and checkpoint. */
export const toJsonReport = (report: ReplayReport): Record<string, unknown> => {
  const { projector } = report;
  const state = projector.state();
  const halted = haltOf(report);
  return {
    log: report.log,
    fromSnapshot: report.restored ?? null,
    until: report.until ?? null,
    checkpoint: projector.checkpoint,
    processed: report.run.processed,
    stats: projector.stats(),
    counts: countProjections(state),
    halted: halted ?? null,
    incompleteTail: projector.incompleteTail() ?? null,
    templates: [...listTemplates(state)],
    signRequests: [...listSignRequests(state)],
    participants: [...listParticipants(state)],
    quarantine: projector.quarantine(),
  };
};
