/**
 * A command declared once: its flags (types, defaults, usage errors and help
 * rows, see flags.ts), its positionals, its row in `signfold --help` and its
 * `--help` page, made from those flags. Definitions are loaded at start-up
 * (the dispatcher answers `--help` from them), so they import nothing but
 * this file and its own: the command's code loads only when it runs.
 */
import { expectPositionals, parseCommandArgs } from './args.js';
import { type Flags, type FlagValues, optionTableOf, readFlags } from './flags.js';
import type { Row } from './help-rows.js';

/** A command, as {@link defineCommand} takes it. */
export interface CommandDefinition<F extends Flags> {
  /** Its row in `signfold --help`. */
  readonly overview: Row;
  readonly flags: F;
  /** The positionals it takes, named in usage errors; `undefined` when the command counts them itself. */
  readonly positionals?: readonly string[];
  /** Its `--help` page, made when asked. */
  readonly help: () => string;
}

/** Declares a command; the identity, there for the inference of `F`. */
export const defineCommand = <F extends Flags>(
  definition: CommandDefinition<F>,
): CommandDefinition<F> => definition;

/** A command line read against flags `F`. */
export interface ParsedCommand<F extends Flags> {
  /** Each flag's value (its default when not given), by its name in camel case. */
  readonly values: FlagValues<F>;
  readonly positionals: readonly string[];
  /**
   * Whether `flag` was on the command line: a flag with a default reads the
   * same given or not, and some go only with others (`--schema` with `--database`).
   */
  readonly given: (flag: keyof F & string) => boolean;
}

/**
 * Parses the words after the command's name against its definition: a
 * usage error for an unknown flag, a wrong count of positionals (checked
 * first, as the words are read) or a wrong value (the first flag declared).
 */
export const parseCommand = <F extends Flags>(
  definition: Pick<CommandDefinition<F>, 'flags' | 'positionals'>,
  args: readonly string[],
): ParsedCommand<F> => {
  const parsed = parseCommandArgs(args, optionTableOf(definition.flags));
  const positionals =
    definition.positionals === undefined
      ? parsed.positionals
      : expectPositionals(parsed.positionals, definition.positionals);
  return {
    values: readFlags(definition.flags, parsed),
    positionals,
    given: (flag) => parsed.values[flag] !== undefined,
  };
};
