/**
 * The default export of a module a command line names (`--reactors`,
 * `--upcasters`, `--fetch`): one import rule for all of them, resolved from
 * the working directory like any path on the command line.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliError } from './cli-error.js';

/**
 * Imports the ES module at `path` and returns its default export
 * (`undefined` when it has none). A module that does not load throws a
 * {@link CliError} (exit 2) worded by `failure` from what was thrown.
 */
export const importDefault = async (
  path: string,
  failure: (cause: unknown) => string,
): Promise<unknown> => {
  try {
    const loaded = (await import(pathToFileURL(resolve(path)).href)) as {
      readonly default?: unknown;
    };
    return loaded.default;
  } catch (cause) {
    throw new CliError(failure(cause));
  }
};
