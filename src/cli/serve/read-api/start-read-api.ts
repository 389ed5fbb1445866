/**
 * What `serve` does when given `--read-token-env`: reads the tokens before
 * anything is opened (a missing variable is exit 2 with one line, never a
 * server that answers 401 to everyone), then builds the read model on the
 * storage it serves. Loaded only then: a serve without read tokens loads
 * neither the report nor a second pool.
 */

import type { Upcaster } from '../../../core/upcasters/upcaster-types.js';
import { withoutPassword } from '../../database-url.js';
import type { ServeLog } from '../request-log.js';
import type { ServeStorage } from '../storage.js';
import { followFileLog } from './file-read-model.js';
import { type ReadRoutes, readRoutes } from './read-routes.js';
import type { ReadTokenEnv } from './read-token-env.js';
import { readTokens } from './read-tokens.js';

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
  /** Folds `path` and follows `storage`'s appends (see `followFileLog`). */
  onFile(
    path: string,
    storage: ServeStorage,
    upcasters: readonly Upcaster[],
    log: ServeLog,
  ): Promise<FileReadApi>;
  /** Opens the read pool on the database `url`. */
  onDatabase(url: string, schema: string | undefined, connectTimeoutMs: number): Promise<ReadApi>;
}

/** Reads the tokens of `entries` from `env`; throws a CliError (exit 2) naming a bad one. */
export const readApiSetup = (
  entries: readonly ReadTokenEnv[],
  env: Readonly<Record<string, string | undefined>>,
): ReadApiSetup => {
  const tokens = readTokens(entries, env);
  return {
    onFile: async (path, storage, upcasters, log) => {
      const followed = await followFileLog(path, storage, upcasters);
      log.event('read-api', {
        message: `folded ${path} for the read API in ${Math.round(followed.foldMs)} ms`,
      });
      return {
        storage: followed.storage,
        routes: readRoutes(followed.model, tokens),
        close: () => followed.model.close(),
      };
    },
    onDatabase: async (url, schema, connectTimeoutMs) => {
      const { openPostgresReadModel } = await import('./postgres-read-model.js');
      const model = await openPostgresReadModel(url, schema, connectTimeoutMs);
      const hide = (text: string): string => withoutPassword(text, url);
      return {
        routes: readRoutes(model, tokens, undefined, undefined, hide),
        close: () => model.close(),
      };
    },
  };
};
