/**
 * The two-column lists of `--help` (a flag or a command, then what it does),
 * made from the flags' own declarations so a flag's help is written once, in
 * {@link Flag}. Descriptions are wrapped by hand where they are declared: a
 * row only aligns them, so every page keeps the layout it was written with.
 */
import type { Flag, Flags } from './flags.js';

/** A row that is no flag: `-h, --help` or a command of the overview. */
export type Row = readonly [label: string, help: string];

/** Where a list sits: its rows' indent, and the column their descriptions start at (after it). */
export interface RowLayout {
  readonly width: number;
  readonly indent?: number;
}

/** `-h, --help`, the last row of every command's options. */
export const HELP_ROW: Row = ['-h, --help', 'show this help'];

/** The label of a flag's row: `-o, --out FILE`, unless it names its own. */
const labelOf = (name: string, flag: Flag<unknown>): string =>
  flag.label ??
  `${flag.short === undefined ? '' : `-${flag.short}, `}--${name}${flag.value === undefined ? '' : ` ${flag.value}`}`;

/** One row: the label, then the description from the column on; a label too wide for it gets a line of its own. */
const rowLines = ([label, help]: Row, { width, indent = 2 }: RowLayout): string[] => {
  const margin = ' '.repeat(indent + width);
  const [first = '', ...rest] = help.split('\n');
  const head =
    label.length < width
      ? [`${' '.repeat(indent)}${label.padEnd(width)}${first}`]
      : [`${' '.repeat(indent)}${label}`, `${margin}${first}`];
  return [...head, ...rest.map((line) => `${margin}${line}`)];
};

/**
 * The rows of `entries` (names of `flags`, in the order shown, or rows of
 * their own), as lines of text. A flag without help has no row.
 */
export const helpRows = <F extends Flags>(
  flags: F,
  entries: readonly ((keyof F & string) | Row)[],
  layout: RowLayout,
): string => {
  const rows = entries.flatMap((entry): Row[] => {
    if (typeof entry !== 'string') return [entry];
    const flag = flags[entry];
    return flag?.help === undefined ? [] : [[labelOf(entry, flag), flag.help]];
  });
  return rows.flatMap((row) => rowLines(row, layout)).join('\n');
};
