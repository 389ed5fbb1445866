/** `signfold pg import LOG`: a file log into the PostgreSQL store, with COPY, in one transaction. */
import { importRecords, type SqlPool } from '../../postgres/index.js';
import { CliError, EXIT, type ExitCode } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import type { PgTarget } from '../postgres-pool.js';
import { ReplayProgress } from '../progress.js';
import { openReadOnlyLog } from '../sources/read-only-log.js';

/** Imports `logPath`; prints what was stored. */
export const pgImport = async (
  pool: SqlPool,
  target: PgTarget,
  logPath: string,
  io: CliIO,
): Promise<ExitCode> => {
  const log = await openReadOnlyLog(logPath);
  const progress = new ReplayProgress(io.stderr, io.now, logPath, 'importing');
  const started = io.now();
  const imported = await importRecords(pool, log.read(), {
    ...target.schemaOptions,
    onProgress: (records) => progress.tick(records, records),
  });
  progress.finish();
  if (imported.isErr()) {
    throw new CliError(`pg import ${logPath}: ${imported.error.message}`);
  }
  const { read, imported: stored, duplicates, badLines, tornTail } = imported.value;
  const seconds = Math.max(0.001, (io.now() - started) / 1000);
  const lines = [
    `imported ${stored} of ${read} records from ${logPath} in ${seconds.toFixed(2)} s (${Math.round(read / seconds)} records/s)`,
    `  duplicates skipped (delivery id already stored): ${duplicates}`,
    `  bad lines stored for the quarantine: ${badLines}`,
  ];
  if (tornTail) lines.push('  an unterminated last line was left out (not data yet)');
  writeLines(io.stdout, lines);
  return EXIT.ok;
};
