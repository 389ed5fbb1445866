/** `signfold validate`, declared once: its flags, its help. */
import { defineCommand } from '../define-command.js';
import { HELP_ROW, helpRows } from '../help-rows.js';

const FLAGS = {};

/** `signfold validate`. */
export const VALIDATE_COMMAND = defineCommand({
  overview: ['validate FILE', 'validate a sign-request representation (JSON)'],
  flags: FLAGS,
  positionals: ['FILE'],
  help: () =>
    [
      `Usage: signfold validate FILE

Validate a sign-request representation (JSON; see docs/service-interface.md)
and print every problem as "path: message".

Options:`,
      helpRows(FLAGS, [HELP_ROW], { width: 13 }),
      `
Exit codes: 0 valid, 1 invalid (including not JSON), 2 usage or unreadable file.`,
    ].join('\n'),
});
