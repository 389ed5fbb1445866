// A reactor to try `signfold react` with, offline: it writes one line per completed or declined
// sign request to completions.txt beside where it runs (appended, so a line written twice after a
// crash shows). The README's offline pipeline runs it on what `signfold emulate` delivered:
//   signfold react events.ndjson --reactors examples/completions.js --drain
import { appendFile } from 'node:fs/promises';
import { defineReactor } from '../dist/core/reactors/index.js';

/** The file the lines go to. */
export const OUTPUT = process.env.COMPLETIONS_FILE ?? 'completions.txt';

export default [
  defineReactor({
    name: 'completions',
    react: ({ event }) =>
      event.type === 'sign-request-completed' || event.type === 'sign-request-declined'
        ? [
            {
              type: 'note',
              line: `${event.signRequestId} ${event.type.slice('sign-request-'.length)} ${event.signRequestName}`,
            },
          ]
        : [],
    execute: (effect) => appendFile(OUTPUT, `${String(effect.line)}\n`),
  }),
];
