/**
 * Vitest global setup: the run's PostgreSQL. One `initdb` for the whole run (a server of its own
 * starts on a copy of that cluster), and one shared server per worker slot (`VITEST_POOL_ID`):
 * a worker runs one file at a time, so the file that holds a slot's server is the only one on it,
 * and a file takes a database of its own there (`throwawayPostgres()`) instead of starting a
 * server (a second or more of CPU each on a 2-core machine). Files that pause, restart or stop
 * their server still start one of their own (`throwawayPostgres({ own: true })`).
 */
import { dirname } from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  BIN_VARIABLE,
  findBin,
  makeTemplate,
  type PostgresServer,
  reachableBin,
  startPostgres,
  TEMPLATE_VARIABLE,
} from '../../scripts/throwaway-postgres.js';
import { TEST_SERVER_SETTINGS } from './postgres-settings.js';
import { removeIfRunDies } from './process-guard.js';

declare module 'vitest' {
  interface ProvidedContext {
    /** The shared servers' URLs by worker slot (index `VITEST_POOL_ID - 1`), or why there are none. */
    postgres: { readonly urls: readonly string[] } | { readonly missing: string };
  }
}

export default async function postgresSetup(project: TestProject): Promise<() => void> {
  const undo: (() => void)[] = [];
  const teardown = (): void => {
    for (const step of undo.splice(0).reverse()) step();
  };
  try {
    // Resolved once, so that the workers (and the servers they start) need not copy it again.
    const found = findBin();
    const bin = reachableBin(found);
    // A copy of the binaries (as root, see reachableBin) is the run's to remove; the found
    // installation never is.
    if (bin.bin !== found) removeIfRunDies(dirname(bin.bin));
    const named = process.env[BIN_VARIABLE];
    process.env[BIN_VARIABLE] = bin.bin;
    undo.push(() => {
      if (named === undefined) delete process.env[BIN_VARIABLE];
      else process.env[BIN_VARIABLE] = named;
      bin.remove();
    });
    const template = await makeTemplate();
    removeIfRunDies(dirname(template.data));
    process.env[TEMPLATE_VARIABLE] = template.data;
    undo.push(() => {
      delete process.env[TEMPLATE_VARIABLE];
      template.remove();
    });
    const slots = Math.max(1, project.config.maxWorkers);
    const servers: PostgresServer[] = [];
    undo.push(() => {
      // A server of its own stops synchronously (pg_ctl -m immediate): done when stop() returns.
      for (const server of servers) void server.stop();
    });
    // Started together: each start mostly waits (the copy of the cluster, the server's start).
    const starts = Array.from({ length: slots }, () =>
      startPostgres({ settings: TEST_SERVER_SETTINGS }).then((server) => {
        servers.push(server);
        return server;
      }),
    );
    // Every start settles before a failure is reported, so the teardown stops all that came up.
    const settled = await Promise.allSettled(starts);
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    // In slot order, whichever started first.
    project.provide('postgres', {
      urls: settled.map((outcome) => (outcome as PromiseFulfilledResult<PostgresServer>).value.url),
    });
  } catch (cause) {
    // No PostgreSQL here: the files that need one fail, each saying why; the others run.
    teardown();
    project.provide('postgres', { missing: String((cause as Error).message ?? cause) });
  }
  return teardown;
}
