/**
 * `signfold effects LOG [--json]`, `signfold effects retry LOG (ID… | FILTER…)`
 * and `signfold effects skip LOG (ID… | FILTER…)`: the reactor effects of a
 * file log or a PostgreSQL schema, and what to do with parked ones (see
 * docs/reactors.md, "Operations").
 */

import type { EffectsChange, EffectsReport } from '../../core/reactors/effects-report.js';
import { withPrunedDone } from '../../core/reactors/effects-report.js';
import type { EditRequest, EffectsFilter } from '../../core/reactors/effects-selection.js';
import { ReactorEffects } from '../../core/reactors/reactor-effects.js';
import { visibleText } from '../../core/visible-text.js';
import { editJournal, type JournalEdit } from '../../store/reactors/journal-edit.js';
import { readJournal } from '../../store/reactors/reactor-journal.js';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeJson, writeLines } from '../cli-io.js';
import { type ParsedCommand, parseCommand } from '../define-command.js';
import { EFFECTS_COMMAND } from '../definitions/effects.js';
import { ensureReadableFile } from '../sources/read-only-log.js';
import { formatTable } from '../table.js';

/** The command line of `effects`, read against its definition. */
type Parsed = ParsedCommand<typeof EFFECTS_COMMAND.flags>;

/** How many timers the text listing shows (`--json` lists them all). */
const TIMERS_SHOWN = 20;

/**
 * What `retry` or `skip` acts on: the ids given, or the parked effects a
 * filter selects. A filter must be said: `--parked` or `--all` alone mean
 * every parked effect, so a bare `effects skip LOG` never drops them all.
 */
const requestOf = (
  { values }: Parsed,
  edit: JournalEdit,
  words: readonly string[],
): EditRequest => {
  const { reactor, error } = values;
  const filtered = reactor !== undefined || error !== undefined || values.parked || values.all;
  if (words.length > 0 && filtered) {
    throw usageError('give IDs or a filter (--reactor, --error, --parked, --all), not both');
  }
  if (words.length > 0) return { edit, ids: words.map(idOf) };
  if (!filtered) throw usageError('missing ID (or a filter: --reactor, --error, --parked, --all)');
  if (error === '') throw usageError('--error needs a text');
  const filter: EffectsFilter = {
    ...(reactor === undefined ? {} : { reactor }),
    ...(error === undefined ? {} : { error }),
  };
  return { edit, filter };
};

/** Refuses the flags of `retry` and `skip` on a listing. */
const refuseEditFlags = ({ given }: Parsed): void => {
  for (const flag of ['reactor', 'error', 'wait', 'parked', 'all', 'dry-run'] as const) {
    if (given(flag)) throw usageError(`--${flag} goes with retry or skip`);
  }
};

/** An effect id as `effects` lists it: a positive decimal integer. */
const idOf = (word: string): number => {
  const id = /^[1-9]\d*$/.test(word) ? Number(word) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw usageError(`ID must be a positive integer (got '${word}')`);
  return id;
};

const printReport = (report: EffectsReport, io: CliIO): void => {
  if (report.reactors.length === 0) {
    writeLines(io.stdout, ['no reactor has run here yet']);
    return;
  }
  const counts = report.reactors.map((row) => [
    row.name,
    String(row.pending),
    String(row.parked),
    String(row.done),
  ]);
  const lines = formatTable(['reactor', 'pending', 'parked', 'done'], counts, '');
  if (report.timers.length > 0) {
    const timers = report.timers
      .slice(0, TIMERS_SHOWN)
      .map((row) => [String(row.id), row.reactor, row.dueAt, row.key ?? '-']);
    lines.push('', 'timers:', ...formatTable(['id', 'reactor', 'due', 'key'], timers));
    const more = report.timers.length - TIMERS_SHOWN;
    if (more > 0) lines.push(`… and ${more} more (--json lists every timer)`);
  }
  if (report.parked.length > 0) {
    const parked = report.parked.map((row) => [
      String(row.id),
      row.reactor,
      row.idempotencyKey,
      String(row.attempts),
      row.lastError,
    ]);
    lines.push(
      '',
      'parked:',
      ...formatTable(['id', 'reactor', 'idempotency key', 'attempts', 'last error'], parked),
    );
  }
  writeLines(io.stdout, lines);
};

const printChange = (
  edit: JournalEdit,
  change: EffectsChange,
  io: CliIO,
  json: boolean,
  dryRun = false,
): ExitCode => {
  if (json) writeJson(io.stdout, dryRun ? { ...change, dryRun: true } : change);
  else {
    const verb = dryRun
      ? edit === 'retry'
        ? 'would run again'
        : 'would be skipped'
      : edit === 'retry'
        ? 'will run again'
        : 'skipped';
    const count = change.changed.length;
    const effects = `${count} ${count === 1 ? 'effect' : 'effects'}`;
    writeLines(io.stdout, [
      ...change.changed.map((id) => `effect ${id}: ${verb}`),
      `${effects} ${verb}${dryRun ? ' (dry run: nothing changed)' : ''}`,
    ]);
    writeLines(
      io.stderr,
      change.refused.map(({ id, reason }) => `signfold: effects ${edit}: effect ${id}: ${reason}`),
    );
  }
  return change.refused.length === 0 ? EXIT.ok : EXIT.findings;
};

/** `effects [retry|skip] --database URL …`: the same output, from PostgreSQL. */
const onDatabase = async (parsed: Parsed, database: string, io: CliIO): Promise<ExitCode> => {
  const { effectsOnDatabase } = await import('../pg/effects.js');
  const { values } = parsed;
  const { json, dryRun } = values;
  const [first, ...rest] = parsed.positionals;
  if (first === 'retry' || first === 'skip') {
    const request = requestOf(parsed, first, rest);
    if (parsed.given('wait')) {
      throw usageError('--wait goes with a LOG (PostgreSQL needs no runner to answer)');
    }
    return effectsOnDatabase(
      values,
      database,
      {
        kind: first,
        request,
        dryRun,
        print: (change) => printChange(first, change, io, json, dryRun),
      },
      io,
    );
  }
  refuseEditFlags(parsed);
  if (first !== undefined)
    throw usageError(`unexpected argument '${first}' (a LOG does not go with --database)`);
  return effectsOnDatabase(
    values,
    database,
    {
      kind: 'list',
      print: (report) => {
        if (json) writeJson(io.stdout, report);
        else printReport(report, io);
        return EXIT.ok;
      },
    },
    io,
  );
};

/**
 * Runs `effects` with `args` (the words after `effects`). Listing: exit 0.
 * `retry`/`skip`: exit 0 when every id was changed, 1 when some were refused
 * (unknown, not parked, invalid), 2 on usage or I/O errors or while
 * `signfold react` runs on the log.
 */
export const effectsCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const parsed = parseCommand(EFFECTS_COMMAND, args);
  const { database, json, dryRun, wait } = parsed.values;
  if (database !== undefined) return onDatabase(parsed, database, io);
  if (parsed.given('schema') || parsed.given('connect-timeout')) {
    throw usageError('--schema and --connect-timeout go with --database URL');
  }
  const [first, ...rest] = parsed.positionals;
  if (first === undefined) throw usageError('missing LOG');
  if (first === 'retry' || first === 'skip') {
    const [log, ...words] = rest;
    if (log === undefined) throw usageError('missing LOG');
    const request = requestOf(parsed, first, words);
    await ensureReadableFile(log);
    const edited = await editJournal(log, request, {
      dryRun,
      ...(wait === undefined ? {} : { waitMs: wait * 1000 }),
    });
    if (edited.isErr()) {
      throw new CliError(`effects ${first}: ${visibleText(edited.error.message)}`);
    }
    return printChange(first, edited.value, io, json, dryRun);
  }
  refuseEditFlags(parsed);
  if (rest.length > 0) throw usageError(`unexpected argument '${rest[0]}'`);
  await ensureReadableFile(first);
  const journal = await readJournal(first);
  if (journal.isErr()) throw new CliError(`effects: ${journal.error.message}`);
  const report = withPrunedDone(
    ReactorEffects.restore(journal.value.book).report(),
    journal.value.pruned,
  );
  if (json) writeJson(io.stdout, report);
  else printReport(report, io);
  return EXIT.ok;
};
