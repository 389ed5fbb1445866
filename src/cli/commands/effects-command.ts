/**
 * `signfold effects LOG [--json]`, `signfold effects retry LOG ID…` and
 * `signfold effects skip LOG ID…`: the reactor effects of a file log, and
 * what to do with parked ones (see docs/reactors.md, "Operations").
 */

import type { EffectsChange, EffectsReport } from '../../core/reactors/effects-report.js';
import { withPrunedDone } from '../../core/reactors/effects-report.js';
import { ReactorEffects } from '../../core/reactors/reactor-effects.js';
import { editJournal, type JournalEdit } from '../../store/reactors/journal-edit.js';
import { readJournal } from '../../store/reactors/reactor-journal.js';
import {
  booleanFlag,
  type OptionTable,
  type ParsedArgs,
  parseCommandArgs,
  stringFlag,
} from '../args.js';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeJson, writeLines } from '../cli-io.js';
import { DATABASE_OPTIONS } from '../pg/pool.js';
import { ensureReadableFile } from '../sources/read-only-log.js';
import { formatTable } from '../table.js';

/** The flags of `effects` (all three forms). */
export const EFFECTS_OPTIONS: OptionTable = { json: { type: 'boolean' }, ...DATABASE_OPTIONS };

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
): ExitCode => {
  if (json) writeJson(io.stdout, change);
  else {
    const verb = edit === 'retry' ? 'will run again' : 'skipped';
    writeLines(
      io.stdout,
      change.changed.map((id) => `effect ${id}: ${verb}`),
    );
    writeLines(
      io.stderr,
      change.refused.map(({ id, reason }) => `signfold: effects ${edit}: effect ${id}: ${reason}`),
    );
  }
  return change.refused.length === 0 ? EXIT.ok : EXIT.findings;
};

/** `effects [retry|skip] --database URL …`: the same output, from PostgreSQL. */
const onDatabase = async (
  parsed: ParsedArgs,
  database: string,
  json: boolean,
  io: CliIO,
): Promise<ExitCode> => {
  const { effectsOnDatabase } = await import('../pg/effects.js');
  const [first, ...rest] = parsed.positionals;
  if (first === 'retry' || first === 'skip') {
    if (rest.length === 0) throw usageError('missing ID');
    const ids = rest.map(idOf);
    return effectsOnDatabase(
      parsed,
      database,
      { kind: first, ids, print: (change) => printChange(first, change, io, json) },
      io,
    );
  }
  if (first !== undefined)
    throw usageError(`unexpected argument '${first}' (a LOG does not go with --database)`);
  return effectsOnDatabase(
    parsed,
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
  const parsed = parseCommandArgs(args, EFFECTS_OPTIONS);
  const json = booleanFlag(parsed, 'json');
  const database = stringFlag(parsed, 'database');
  if (database !== undefined) return onDatabase(parsed, database, json, io);
  if (
    stringFlag(parsed, 'schema') !== undefined ||
    stringFlag(parsed, 'connect-timeout') !== undefined
  ) {
    throw usageError('--schema and --connect-timeout go with --database URL');
  }
  const [first, ...rest] = parsed.positionals;
  if (first === undefined) throw usageError('missing LOG');
  if (first === 'retry' || first === 'skip') {
    const [log, ...words] = rest;
    if (log === undefined) throw usageError('missing LOG');
    if (words.length === 0) throw usageError('missing ID');
    const ids = words.map(idOf);
    await ensureReadableFile(log);
    const edited = await editJournal(log, first, ids);
    if (edited.isErr()) throw new CliError(`effects ${first}: ${edited.error.message}`);
    return printChange(first, edited.value, io, json);
  }
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
