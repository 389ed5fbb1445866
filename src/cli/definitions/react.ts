/** `signfold react`, declared once: its flags, its help. */
import { choiceOption } from '../choice-option.js';
import { defineCommand } from '../define-command.js';
import { booleanOption, valueOption, withDefault } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';
import { metricsPort } from '../metrics/metrics-port.js';

const FLAGS = {
  reactors: valueOption({
    value: 'MODULE',
    help: `the reactors to run (one with SQL effects is refused:
those need PostgreSQL, signfold pg work --reactors)`,
  }),
  drain: booleanOption({
    help: `exit once every event is reacted to and no effect is due
or retrying (timers not yet due stay in the journal);
without it, follow appends until SIGINT or SIGTERM`,
  }),
  from: withDefault(
    choiceOption(
      {
        value: 'end',
        help: `a reactor without a checkpoint starts at the end of the
log (default: at its start; timers wait until it has read
the whole log, so history fires none that it cancels)`,
      },
      ['start', 'end'],
    ),
    'start',
  ),
  upcasters: valueOption({
    value: 'MODULE',
    help: `rewrite records before decoding them (see signfold replay
--help): reactors react to the events they make`,
  }),
  'metrics-port': valueOption(
    {
      value: 'P',
      help: `serve Prometheus /metrics on 127.0.0.1:P (0: any free
port; prints "metrics listening on URL" on stdout): lag,
events, effects, attempts, next timer (docs/cli.md#metrics);
a port in use is exit 2`,
    },
    metricsPort,
  ),
  tracing: valueOption({
    value: 'MODULE',
    help: `OpenTelemetry spans of each record projected and each
effect attempt (see signfold serve --help)`,
  }),
};

/** `signfold react`. */
export const REACT_COMMAND = defineCommand({
  overview: [
    'react LOG',
    'run reactors on a log: effects with retries, parking and timers (--reactors MODULE)',
  ],
  flags: FLAGS,
  positionals: ['LOG'],
  help: () =>
    [
      `Usage: signfold react LOG --reactors MODULE [--drain] [--from end] [--upcasters MODULE]
                      [--metrics-port P]
                      [--tracing MODULE]

Run reactors on a file log: call each reactor's react for every applied event
past its checkpoint, and execute the effects it returns (retries with backoff,
parking after maxAttempts, timers in event time). MODULE is an ES module whose
default export is an array of reactors (defineReactor). Reactor state (each
reactor's checkpoint and watermark, and the journal of effects) is kept in
LOG.reactors under the lock LOG.reactors.lock: one react per log at a time.
LOG itself is only read; serve may append to it meanwhile.

Options:`,
      helpRows(
        FLAGS,
        ['reactors', 'drain', 'from', 'upcasters', 'metrics-port', 'tracing', HELP_ROW],
        { width: 19 },
      ),
      `
SIGINT/SIGTERM: no new effect starts; running ones get 10 s to finish; the
journal is written; exit 0. An effect cut short runs again, with the same
idempotency key.

Exit codes: 0 drained or stopped, 2 usage error, bad module, lock held by
another react, or I/O error.`,
    ].join('\n'),
});
