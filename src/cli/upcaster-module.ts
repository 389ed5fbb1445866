/**
 * Loads `--upcasters MODULE`: an ES module whose default export is an array
 * of upcasters (`defineUpcaster` results or plain definitions). Everything
 * wrong with it is one line and exit 2, before any event is read.
 */
import { defineUpcaster } from '../core/upcasters/define-upcaster.js';
import type { Upcaster } from '../core/upcasters/upcaster-types.js';
import { visibleText } from '../core/visible-text.js';
import { CliError, describeThrown } from './cli-error.js';
import { importDefault } from './module-default.js';

/** Imports `path` and checks its default export; `command` names the command in messages. */
export const loadUpcasterModule = async (path: string, command: string): Promise<Upcaster[]> => {
  const shown = visibleText(path);
  const items = await importDefault(
    path,
    (cause) => `${command}: cannot load ${shown}: ${oneLine(describeThrown(cause))}`,
  );
  if (!Array.isArray(items)) {
    throw new CliError(
      `${command}: ${shown} must export an array of upcasters as its default export`,
    );
  }
  const upcasters: Upcaster[] = [];
  const names = new Set<string>();
  for (const [index, item] of items.entries()) {
    let upcaster: Upcaster;
    try {
      upcaster = defineUpcaster(item);
    } catch (cause) {
      throw new CliError(
        `${command}: ${shown}: upcaster ${index}: ${oneLine(describeThrown(cause))}`,
      );
    }
    if (names.has(upcaster.name)) {
      throw new CliError(`${command}: ${shown}: two upcasters are named "${upcaster.name}"`);
    }
    names.add(upcaster.name);
    upcasters.push(upcaster);
  }
  return upcasters;
};

/** A module's error may span lines (a syntax error's excerpt): the first, made visible, is the message. */
const oneLine = (text: string): string => visibleText(text.split('\n')[0] ?? '');

/** The upcasters of `--upcasters MODULE`, loaded; none without the flag (`undefined`). */
export const upcastersOf = async (
  path: string | undefined,
  command: string,
): Promise<Upcaster[]> => (path === undefined ? [] : loadUpcasterModule(path, command));
