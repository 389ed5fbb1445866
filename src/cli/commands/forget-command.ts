/**
 * `signfold forget (LOG | --database URL) (--participant ID | --user ID |
 * --name TEXT)... [--company ID] [--dry-run] [--json] [--vacuum]`: erases one
 * person's names from everything signfold stores, replacing them by a
 * pseudonym, and records the erasure in the ledger (docs/privacy.md). On a
 * file log that `serve --log` holds, serve runs the same forget with its
 * appends held back (through-writer.ts).
 */

import { visibleText } from '../../core/visible-text.js';
import type { ForgetReport, ForgetRequest } from '../../engine/forget-report.js';
import { expectPositionals } from '../args.js';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { parseCommand } from '../define-command.js';
import { FORGET_COMMAND } from '../definitions/forget.js';
import type { FlagValues } from '../flags.js';
import { writeForgetReport } from '../forget-output.js';
import { askHolder, throughLine, type WriterHolder, writerHolderOf } from '../through-writer.js';

const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];

/** Reads the person to forget from the flags; a usage error when none is named. */
export const forgetRequestOf = (values: FlagValues<typeof FORGET_COMMAND.flags>): ForgetRequest => {
  const participantIds = unique(values.participant);
  const userIds = unique(values.user);
  const names = unique(values.name);
  if (participantIds.length + userIds.length + names.length === 0) {
    throw usageError(
      'say whom to forget: --participant ID, --user ID or --name TEXT (each may be repeated)',
    );
  }
  const { company } = values;
  return {
    participantIds,
    userIds,
    names,
    dryRun: values.dryRun,
    ...(company === undefined ? {} : { companyId: company }),
  };
};

const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v);
const isList = (v: unknown, item: (x: unknown) => boolean): boolean =>
  Array.isArray(v) && v.every(item);
const isText = (v: unknown): boolean => typeof v === 'string';

/** The holder's report, checked to have the shape the output reads. */
const reportOf = (value: unknown): ForgetReport | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  const counts = r.counts as Record<string, unknown> | undefined;
  const valid =
    isText(r.erasure) &&
    isText(r.pseudonym) &&
    typeof r.reused === 'boolean' &&
    r.dryRun === false &&
    isList(r.participantIds, isCount) &&
    isList(r.userIds, isCount) &&
    isCount(r.typedNames) &&
    (r.companyId === undefined || isCount(r.companyId)) &&
    isCount(r.foundNames) &&
    isList(r.sameNameParticipantIds, isCount) &&
    typeof counts === 'object' &&
    counts !== null &&
    Object.values(counts).every(isCount) &&
    isList(r.remaining, isText) &&
    isList(r.notes, isText);
  if (!valid) return undefined;
  const visible = (texts: unknown): string[] => (texts as string[]).map((t) => visibleText(t));
  return {
    ...(r as unknown as ForgetReport),
    erasure: visibleText(r.erasure as string),
    pseudonym: visibleText(r.pseudonym as string),
    remaining: visible(r.remaining),
    notes: visible(r.notes),
  };
};

/** Forget through the running `serve` that holds the log: it runs the same forget, appends held back. */
const forgetThroughHolder = async (
  holder: WriterHolder,
  request: ForgetRequest,
  io: CliIO,
): Promise<ForgetReport> => {
  await askHolder(holder, { action: 'hello' }, 'nothing was changed');
  writeLines(io.stderr, [throughLine(holder)]);
  const answer = await askHolder(
    holder,
    { action: 'forget', forget: request },
    `forget may have finished or not (every file is whole, old or new, as after an interrupted forget): run forget again, which finishes it with the same pseudonym`,
  );
  const report = reportOf(answer.report);
  if (report === undefined) {
    throw new CliError(`signfold forget: pid ${holder.pid} answered with no report`);
  }
  return report;
};

/**
 * Runs `forget` with `args` (the words after `forget`): exit 0 when every
 * place signfold owns was rewritten, 1 when something still holds a name that
 * forget cannot rewrite (listed), 2 on usage, I/O or database errors.
 */
export const forgetCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const { values, positionals, given } = parseCommand(FORGET_COMMAND, args);
  const request = forgetRequestOf(values);
  const { database } = values;
  let report: ForgetReport;
  if (database === undefined) {
    const [log = ''] = expectPositionals(positionals, ['LOG']);
    if (values.vacuum) throw usageError('--vacuum goes with --database');
    for (const flag of ['schema', 'connect-timeout'] as const) {
      if (given(flag)) throw usageError(`--${flag} goes with --database`);
    }
    const waitMs = values.wait * 1000;
    const { forgetFileLog } = await import('../../store/forget/forget-file-log.js');
    const forgotten = await forgetFileLog(log, request);
    if (forgotten.isOk()) {
      report = forgotten.value;
    } else {
      const { writerLocked } = forgotten.error;
      const holder =
        writerLocked === undefined
          ? undefined
          : writerHolderOf(writerLocked, 'signfold forget', waitMs);
      if (holder === undefined) throw new CliError(forgotten.error.message);
      report = await forgetThroughHolder(holder, request, io);
    }
  } else {
    expectPositionals(positionals, []);
    if (given('wait')) throw usageError('--wait goes with a LOG');
    const { pgForget } = await import('../pg/forget.js');
    report = await pgForget(values, database, request, values.vacuum);
  }
  writeForgetReport(io, report, values.json);
  return report.remaining.length > 0 ? EXIT.findings : EXIT.ok;
};
