/**
 * The read model of `serve --database URL --read-token-env …` on a pool of
 * its own, opened as every command opens one (`--connect-timeout`, the
 * message when `pg` is missing) with each read bounded by the read model's
 * deadline. Loaded only then: it alone of the read API loads `pg`.
 */
import type { ReadModel } from '../../../engine/read-model.js';
import {
  postgresReadModel,
  READ_QUERY_TIMEOUT_MS,
} from '../../../postgres/read/postgres-read-model.js';
import { schemaName } from '../../../postgres/schema-name.js';
import { CliError } from '../../cli-error.js';
import { openPool } from '../../postgres-pool.js';

/** Opens the pool and the model on it; `close` ends the pool and never rejects. */
export const openReadApiPool = async (
  url: string,
  schema: string | undefined,
  connectTimeoutMs: number,
): Promise<{ readonly model: ReadModel; close(): Promise<void> }> => {
  const checked = schemaName(schema);
  if (checked.isErr()) throw new CliError(checked.error.message);
  const pool = await openPool(url, {
    connectTimeoutMs,
    queryTimeoutMs: READ_QUERY_TIMEOUT_MS,
    who: 'signfold serve --read-token-env',
  });
  return {
    model: postgresReadModel(pool, checked.value),
    close: () => pool.end().catch(() => undefined),
  };
};
