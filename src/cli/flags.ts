/**
 * A command's flags, each declared once: how `parseArgs` reads it, what the
 * command gets (its type, default and usage error), and its row in `--help`.
 * The values' type is inferred from the declarations, so no command writes
 * out a bag of its options by hand.
 */
import type { OptionTable, ParsedArgs } from './args.js';

/** What `parseArgs` gives one flag. */
type Raw = string | boolean | string[] | undefined;

/** One flag. `T` is what the command gets. */
export interface Flag<T> {
  readonly type: 'string' | 'boolean';
  readonly multiple?: true;
  /** A one-letter alias: `o` for `-o`. */
  readonly short?: string;
  /** The placeholder of its value in help rows: `N` in `--until N`. */
  readonly value?: string;
  /** The whole row label, when `-o, --out FILE` would not say it (`--from TIME, --to TIME`). */
  readonly label?: string;
  /** Its description in help rows, wrapped by hand: lines are aligned, never rewrapped. */
  readonly help?: string;
  /** `parseArgs`'s value to the command's; throws a usage error naming `flag` (`--until`). */
  readonly read: (raw: Raw, flag: string) => T;
}

/** How a flag appears in help rows. */
export type FlagMeta = Pick<Flag<unknown>, 'short' | 'value' | 'label' | 'help'>;

/** A command's flags by name (`batch-size`). */
export type Flags = Readonly<Record<string, Flag<unknown>>>;

/** `batch-size` → `batchSize`. */
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;

/** What the command gets: each flag's value, by its name in camel case. */
export type FlagValues<F extends Flags> = {
  readonly [K in keyof F & string as Camel<K>]: F[K] extends Flag<infer T> ? T : never;
};

/** A boolean flag: `true` only when given. */
export const booleanOption = (meta: FlagMeta = {}): Flag<boolean> => ({
  ...meta,
  type: 'boolean',
  read: (raw) => raw === true,
});

/** A string flag, `read` by `parse` when given (`undefined` otherwise). */
export const valueOption = <T = string>(
  meta: FlagMeta,
  parse?: (value: string, flag: string) => T,
): Flag<T | undefined> => ({
  ...meta,
  type: 'string',
  read: (raw, flag) =>
    typeof raw !== 'string' ? undefined : parse === undefined ? (raw as T) : parse(raw, flag),
});

/** A string flag that may be given several times: its values in the order given, each `read` by `parse`. */
export const repeatedOption = <T = string>(
  meta: FlagMeta,
  parse?: (value: string, flag: string) => T,
): Flag<readonly T[]> => ({
  ...meta,
  type: 'string',
  multiple: true,
  read: (raw, flag) =>
    !Array.isArray(raw)
      ? []
      : parse === undefined
        ? (raw as T[])
        : raw.map((value) => parse(value, flag)),
});

/** `flag`, with `fallback` when not given. */
export const withDefault = <T>(flag: Flag<T | undefined>, fallback: T): Flag<T> => ({
  ...flag,
  read: (raw, name) => flag.read(raw, name) ?? fallback,
});

/** `flag` with another description (a flag shared by commands whose help words it each its way). */
export const describedAs = <T>(flag: Flag<T>, help: string): Flag<T> => ({ ...flag, help });

/** The table `parseArgs` takes for `flags`. */
export const optionTableOf = (flags: Flags): OptionTable =>
  Object.fromEntries(
    Object.entries(flags).map(([name, flag]) => [
      name,
      {
        type: flag.type,
        ...(flag.multiple === undefined ? {} : { multiple: flag.multiple }),
        ...(flag.short === undefined ? {} : { short: flag.short }),
      },
    ]),
  );

const camel = (name: string): string =>
  name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** Reads every flag of `parsed`, in the order `flags` declares them (so the first wrong one is named). */
export const readFlags = <F extends Flags>(flags: F, parsed: ParsedArgs): FlagValues<F> =>
  Object.fromEntries(
    Object.entries(flags).map(([name, flag]) => [
      camel(name),
      flag.read(parsed.values[name] as Raw, `--${name}`),
    ]),
  ) as FlagValues<F>;
