/**
 * `createReadHandler` on PostgreSQL, mounted in Hono and in node:http: a log
 * imported and projected by `pg migrate`, `pg import` and `pg work --drain`,
 * read back from the projection tables through a URL (the handler's own
 * pool, ended by `close`) and through a pool of the caller's (left open).
 * The token's company's request is 200 with its state, another company's
 * 404 as an absent one, no token 401; the list and the report see the
 * token's companies only.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadHandler } from '../../src/http/read-handler.js';
import { removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { throwawayPostgres } from '../support/postgres-server.js';
import { MOUNTS } from './fixtures/mount.js';
import { mountedReads, readEvents } from './fixtures/mounted-reads.js';

const database = throwawayPostgres(1);
const ACME = 'pg-token-of-acme-only-0123456789';
let url: string;
/** A pool of the caller's on the test's database: the handler must leave it open. */
let callerPool: pg.Pool;

beforeAll(async () => {
  url = await database.server.createDatabase('http_reads');
  const log = join(await tempDir(), 'events.ndjson');
  await writeFile(
    log,
    readEvents()
      .map((event) => `${JSON.stringify(event)}\n`)
      .join(''),
  );
  for (const args of [
    ['pg', 'migrate', '--database', url],
    ['pg', 'import', log, '--database', url],
    ['pg', 'work', '--drain', '--database', url],
  ]) {
    const run = await runCli(args);
    expect(run.code, run.stderr).toBe(0);
  }
  callerPool = new pg.Pool({ connectionString: url, max: 2 });
}, 120_000);
afterAll(async () => {
  // Still open after the handlers on it closed: ending it is the caller's.
  expect((await callerPool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  await callerPool.end();
  await removeTempDirs();
});

const SOURCES = {
  'a URL': () => url,
  'a pool of the caller': () => callerPool,
} as const;

describe.each(Object.keys(SOURCES) as (keyof typeof SOURCES)[])('on %s', (sourceName) => {
  describe.each(Object.keys(MOUNTS) as (keyof typeof MOUNTS)[])('mounted in %s', (mountName) => {
    const { get } = mountedReads(mountName, () => ({
      database: SOURCES[sourceName](),
      tokens: [{ token: ACME, companies: [1] }],
    }));

    it("answers the token's company's request with its state, another's 404, none 401", async () => {
      const own = await get('/api/sign-requests/101', ACME);
      expect(own.status).toBe(200);
      expect(await own.json()).toMatchObject({
        signRequest: { id: 101, companyId: 1, status: 'completed' },
        auditTrail: [{ position: 1 }, { position: 3 }],
      });
      const other = await get('/api/sign-requests/201', ACME);
      expect([other.status, await other.text()]).toEqual([404, '{"error":"not found"}\n']);
      const none = await get('/api/sign-requests/101');
      expect(none.status).toBe(401);
      await none.arrayBuffer();
    });

    it("lists and reports the token's companies only", async () => {
      const list = await get('/api/sign-requests', ACME);
      const page = (await list.json()) as { signRequests: { id: number }[]; next: null };
      expect(page.signRequests.map((request) => request.id)).toEqual([101]);
      const report = await get('/report', ACME);
      expect(report.status).toBe(200);
      expect(await report.text()).toContain('the live state of companies 1');
    });
  });
});

describe('on a database that cannot be read', () => {
  it('answers 503 with Retry-After, and refuses a malformed schema at ready', async () => {
    const wrongSchema = createReadHandler({
      database: url,
      schema: 'Not A Schema',
      tokens: [{ token: ACME, companies: [1] }],
    });
    await expect(wrongSchema.ready).rejects.toThrow(/schema must be a lower-case identifier/);
    await wrongSchema.close();
    const absent = createReadHandler({
      database: url,
      schema: 'absent_schema',
      tokens: [{ token: ACME, companies: [1] }],
    });
    await absent.ready;
    const answer = await absent.fetch(
      new Request('http://localhost/api/sign-requests/101', {
        headers: { authorization: `Bearer ${ACME}` },
      }),
    );
    expect([answer.status, answer.headers.get('retry-after')]).toEqual([503, '5']);
    await absent.close();
  });
});
