/**
 * Every command's definition, by name, in the order `signfold --help` lists
 * them, and that overview. The dispatcher answers `--help` from these alone;
 * each command's code loads only when it runs.
 */
import type { CommandDefinition } from '../define-command.js';
import type { Flags } from '../flags.js';
import { helpRows } from '../help-rows.js';
import { CHECK_COMMAND } from './check.js';
import { EFFECTS_COMMAND } from './effects.js';
import { EMULATE_COMMAND } from './emulate.js';
import { FORGET_COMMAND } from './forget.js';
import { INSPECT_COMMAND } from './inspect.js';
import { PG_COMMAND } from './pg.js';
import { REACT_COMMAND } from './react.js';
import { READ_LINK_COMMAND } from './read-link.js';
import { RECONCILE_COMMAND } from './reconcile.js';
import { REPLAY_COMMAND } from './replay.js';
import { REPORT_COMMAND } from './report.js';
import { SERVE_COMMAND } from './serve.js';
import { UNLOCK_COMMAND } from './unlock.js';
import { VALIDATE_COMMAND } from './validate.js';

/** The definitions, by command name. */
export const COMMAND_DEFINITIONS = {
  replay: REPLAY_COMMAND,
  check: CHECK_COMMAND,
  inspect: INSPECT_COMMAND,
  validate: VALIDATE_COMMAND,
  report: REPORT_COMMAND,
  pg: PG_COMMAND,
  unlock: UNLOCK_COMMAND,
  serve: SERVE_COMMAND,
  react: REACT_COMMAND,
  effects: EFFECTS_COMMAND,
  reconcile: RECONCILE_COMMAND,
  forget: FORGET_COMMAND,
  emulate: EMULATE_COMMAND,
  'read-link': READ_LINK_COMMAND,
} as const satisfies Readonly<Record<string, CommandDefinition<Flags>>>;

/** A command's name. */
export type CommandName = keyof typeof COMMAND_DEFINITIONS;

/** `signfold --help`: the commands' rows come from their definitions. */
export const overviewHelp = (): string =>
  [
    `Usage: signfold <command> [options]

Fold e-signature webhook event logs (NDJSON) into projections.

Commands:`,
    helpRows(
      {},
      Object.values(COMMAND_DEFINITIONS).map((definition) => definition.overview),
      { width: 16 },
    ),
    `
Options:
  -h, --help      show help (also: signfold <command> --help, signfold help <command>)
  --version       print the version

Exit codes: 0 ok, 1 problems found (or halted, or not found), 2 usage or input error.
LOG is never modified; only unlock touches its writer lock (serve appends to --log FILE,
reconcile appends observation records, forget rewrites names in place);
react and effects keep reactor state beside it (LOG.reactors, LOG.reactors.lock).`,
  ].join('\n');
