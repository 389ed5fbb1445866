/**
 * `signfold pg events`: the stored records (events, observations, bad lines)
 * written to stdout as a log file `replay`, `check` and `report` read, line N
 * holding the record at position N (stored-log-line.ts says how each row is
 * written). To compare a database with a file log, or take its events away.
 */
import { visibleText } from '../../core/visible-text.js';
import type { SqlPool } from '../../postgres/index.js';
import { type EventRow, readStoredEvents } from '../../postgres/read/read-stored-events.js';
import { EXIT, type ExitCode } from '../cli-error.js';
import type { CliIO } from '../cli-io.js';
import type { PgTarget } from '../postgres-pool.js';
import { postgresFailure } from './failure.js';
import { storedLogLine } from './stored-log-line.js';

/**
 * Prints every stored row as one line, positions with no row (an append that
 * rolled back leaves a gap) as blank lines, so line numbers are positions as
 * in the database. On a terminal, control characters come out escaped.
 */
export const pgEvents = async (pool: SqlPool, target: PgTarget, io: CliIO): Promise<ExitCode> => {
  const terminal = io.stdout.isTTY === true;
  let line = 0;
  const read = await readStoredEvents(pool, target.schemaOptions, (rows: readonly EventRow[]) => {
    const parts: string[] = [];
    for (const row of rows) {
      const position = Number(row.position);
      if (position > line + 1) parts.push('\n'.repeat(position - line - 1));
      const text = storedLogLine(row);
      parts.push(terminal ? visibleText(text) : text, '\n');
      line = position;
    }
    io.stdout.write(parts.join(''));
  });
  if (read.isErr()) throw postgresFailure(read.error);
  return EXIT.ok;
};
