/**
 * Vitest global setup: the run's services, PostgreSQL (postgres-setup.ts) and the browser
 * (browser-setup.ts), started at the same time. Each mostly waits (a cluster copied, servers and
 * a browser starting up), so together they take about as long as the slower one; one after the
 * other they held every test back by both.
 */
import type { TestProject } from 'vitest/node';
import browserSetup from './browser-setup.js';
import postgresSetup from './postgres-setup.js';

export default async function servicesSetup(project: TestProject): Promise<() => Promise<void>> {
  // Neither throws: each gives the workers its failure instead (the files that need it fail).
  const [stopBrowser, stopPostgres] = await Promise.all([browserSetup(), postgresSetup(project)]);
  return async () => {
    try {
      await stopBrowser();
    } finally {
      stopPostgres();
    }
  };
}
