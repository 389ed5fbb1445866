/**
 * `signfold react LOG --reactors MODULE [--drain] [--from end]`: runs the
 * module's reactors on a file log (see docs/reactors.md). SIGINT and SIGTERM
 * stop it cleanly: no new effect starts, running ones get the shutdown grace
 * to finish, the journal is written, exit 0.
 */

import { createFileReactorRunner } from '../../store/reactors/file-reactor-runner.js';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { parseCommand } from '../define-command.js';
import { REACT_COMMAND } from '../definitions/react.js';
import type { ProcessMetrics } from '../metrics/process-metrics.js';
import { loadReactorModule } from '../reactor-module.js';
import { ensureReadableFile } from '../sources/read-only-log.js';
import { awaitStopSignal } from '../stop-signals.js';
import { loadTracing } from '../tracing-module.js';
import { upcastersOf } from '../upcaster-module.js';

/**
 * Runs `react` with `args` (the words after `react`): exit 0 once drained or
 * stopped by a signal, 2 on usage errors, a bad module, a held lock or I/O
 * failures (thrown as CliError).
 */
export const reactCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const { values, positionals } = parseCommand(REACT_COMMAND, args);
  const [log = ''] = positionals;
  const { reactors: modulePath, from, drain, metricsPort } = values;
  if (modulePath === undefined) throw usageError('missing --reactors MODULE');
  const stop = awaitStopSignal();
  let served: ProcessMetrics | undefined;
  try {
    await ensureReadableFile(log);
    const reactors = await loadReactorModule(modulePath, 'react', 'refuse-sql');
    const upcasters = await upcastersOf(values.upcasters, 'react');
    const traced = await loadTracing(values.tracing, 'react');
    const controller = new AbortController();
    void stop.requested.then(() => controller.abort());
    const { tracing } = traced;
    const runner = createFileReactorRunner({
      logPath: log,
      reactors,
      upcasters,
      from,
      drain,
      onAttempt: (reactor, outcome) => served?.metrics.attempted(reactor, outcome),
      tracing,
    });
    if (metricsPort !== undefined) {
      // Only with the flag: prom-client is loaded by whoever serves metrics, and no one else.
      const { startProcessMetrics } = await import('../metrics/process-metrics.js');
      const { fileGaugeReader } = await import('../metrics/file-gauges.js');
      served = await startProcessMetrics(
        metricsPort,
        {
          read: fileGaugeReader(log, runner),
          reactors: reactors.map((reactor) => reactor.name),
          partitioned: false,
          counters: true,
        },
        io,
      );
    }
    const result = await runner.run(controller.signal).finally(() => traced.close());
    if (result.isErr()) throw new CliError(`react: ${result.error.message}`);
    const { reactions, succeeded, failed, abandoned, report } = result.value;
    const parked = report.reactors.reduce((sum, row) => sum + row.parked, 0);
    const pending = report.reactors.reduce((sum, row) => sum + row.pending, 0);
    writeLines(io.stderr, [
      `react: ${reactions} reactions, ${succeeded} effects succeeded, ${failed} attempts failed; ` +
        `${pending} pending, ${parked} parked` +
        (abandoned > 0
          ? `; ${abandoned} still running at shutdown (they run again next time)`
          : ''),
    ]);
    return EXIT.ok;
  } finally {
    await served?.close();
    stop.release();
  }
};
