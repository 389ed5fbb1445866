/**
 * What `serve` does when given `--read-token-env`: reads the tokens before
 * anything is opened (a missing variable is exit 2 with one line, never a
 * server that answers 401 to everyone), then builds the read model on the
 * storage it serves, and the read routes of `signfold/http` over it. Loaded
 * only then: a serve without read tokens loads neither the report nor a
 * second pool.
 */

import type { Upcaster } from '../../../core/upcasters/upcaster-types.js';
import type { AppendOptions } from '../../../engine/event-log.js';
import { JsonText } from '../../../engine/json-text.js';
import { type ReadRoutes, readRoutes } from '../../../http/read-routes.js';
import { type ReadTokens, readTokens, type TokenProblem } from '../../../http/read-tokens.js';
import { type FileReadModel, openFileReadModel } from '../../../store/file-read-model.js';
import { CliError, usageError } from '../../cli-error.js';
import { withoutPassword } from '../../database-url.js';
import type { ServeLog } from '../request-log.js';
import type { ServeStorage } from '../storage.js';
import type { ReadTokenEnv } from './read-token-env.js';

/** The read API of one server, on its storage. */
export interface ReadApi {
  readonly routes: ReadRoutes;
  /** Releases what the read model holds; never rejects. */
  close(): Promise<void>;
}

/** The read API on a file log, and the storage to serve on (its appends feed the model). */
export interface FileReadApi extends ReadApi {
  readonly storage: ServeStorage;
}

/** The tokens, read and checked, and how to start the API on either storage. */
export interface ReadApiSetup {
  /** Folds `path` and follows `storage`'s appends. */
  onFile(
    path: string,
    storage: ServeStorage,
    upcasters: readonly Upcaster[],
    log: ServeLog,
  ): Promise<FileReadApi>;
  /** Opens the read pool on the database `url`. */
  onDatabase(url: string, schema: string | undefined, connectTimeoutMs: number): Promise<ReadApi>;
}

/** The error of a token the environment gives, naming its variable (never its value). */
const tokenError = (problem: TokenProblem): CliError => {
  const { name } = problem;
  if (problem.kind === 'empty') {
    return new CliError(`--read-token-env ${name}: the variable is unset or empty`);
  }
  if (problem.kind === 'same') {
    return usageError(
      `--read-token-env ${name} holds the same token as ${problem.other}: give each its own`,
    );
  }
  // The flag's parser requires companies, so only a short token is left.
  return usageError(
    `--read-token-env ${name}: a read token must be at least 16 characters without spaces (e.g. openssl rand -hex 24)`,
  );
};

/** The tokens of `entries`, read from `env`; a CliError naming the variable of a bad one. */
const tokensOf = (
  entries: readonly ReadTokenEnv[],
  env: Readonly<Record<string, string | undefined>>,
): ReadTokens => {
  const named = entries.map(({ name, companies }) => ({ name, token: env[name] ?? '', companies }));
  const checked = readTokens(named);
  if (checked.isErr()) throw tokenError(checked.error);
  return checked.value;
};

/** `storage`, each append it commits told to `model` (so reads see it at once). */
const feeding = (storage: ServeStorage, model: FileReadModel): ServeStorage => {
  const append: ServeStorage['log']['append'] = async (event, options?: AppendOptions) => {
    const appended = await storage.log.append(event, options);
    if (appended.isOk() && appended.value.kind === 'appended') {
      const { position, receivedAt } = appended.value;
      const text = event instanceof JsonText ? event : undefined;
      model.committed({
        position,
        event: text === undefined ? event : text.value,
        receivedAt,
        ...(options?.deliveryId === undefined ? {} : { deliveryId: options.deliveryId }),
        ...(text === undefined ? {} : { raw: text.text }),
      });
    }
    return appended;
  };
  return { ...storage, log: { append } };
};

/** Reads the tokens of `entries` from `env`; throws a CliError (exit 2) naming a bad one. */
export const readApiSetup = (
  entries: readonly ReadTokenEnv[],
  env: Readonly<Record<string, string | undefined>>,
): ReadApiSetup => {
  const tokens = tokensOf(entries, env);
  return {
    onFile: async (path, storage, upcasters, log) => {
      const model = await openFileReadModel(path, { upcasters });
      log.event('read-api', {
        message: `folded ${path} for the read API in ${Math.round(model.foldMs)} ms`,
      });
      return {
        storage: feeding(storage, model),
        routes: readRoutes(model, tokens),
        close: () => model.close(),
      };
    },
    onDatabase: async (url, schema, connectTimeoutMs) => {
      const { openReadApiPool } = await import('./read-api-pool.js');
      const { model, close } = await openReadApiPool(url, schema, connectTimeoutMs);
      const hide = (text: string): string => withoutPassword(text, url);
      return { routes: readRoutes(model, tokens, undefined, undefined, hide), close };
    },
  };
};
