/**
 * Loads `--reactors MODULE`: an ES module whose default export is an array
 * of reactors (`defineReactor` results or plain definitions). Everything
 * wrong with it is one line and exit 2, before any state is touched.
 */
import { defineReactor } from '../core/reactors/define-reactor.js';
import type { Reactor } from '../core/reactors/reactor-types.js';
import { visibleText } from '../core/visible-text.js';
import { CliError, describeThrown } from './cli-error.js';
import { importDefault } from './module-default.js';

/** Whether SQL effects can run where the reactors are loaded (PostgreSQL only). */
export type SqlSupport = 'refuse-sql' | 'allow-sql';

/**
 * Imports `path` and checks its default export; `command` names the command
 * in messages. With `refuse-sql`, a reactor with SQL effects is refused.
 */
export const loadReactorModule = async (
  path: string,
  command: string,
  sql: SqlSupport,
): Promise<Reactor[]> => {
  const items = await importDefault(
    path,
    (cause) => `${command}: cannot load ${path}: ${describeThrown(cause)}`,
  );
  if (!Array.isArray(items)) {
    throw new CliError(
      `${command}: ${path} must export an array of reactors as its default export`,
    );
  }
  const reactors: Reactor[] = [];
  const names = new Set<string>();
  for (const [index, item] of items.entries()) {
    let reactor: Reactor;
    try {
      reactor = defineReactor(item);
    } catch (cause) {
      throw new CliError(`${command}: ${path}: reactor ${index}: ${describeThrown(cause)}`);
    }
    if (names.has(reactor.name)) {
      throw new CliError(`${command}: ${path}: two reactors are named "${reactor.name}"`);
    }
    names.add(reactor.name);
    if (sql === 'refuse-sql' && reactor.sql !== undefined) {
      throw new CliError(
        `${command}: reactor "${visibleText(reactor.name)}" has SQL effects, which need PostgreSQL (signfold pg work --reactors)`,
      );
    }
    reactors.push(reactor);
  }
  return reactors;
};
