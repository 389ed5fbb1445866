/**
 * The read API of `signfold serve --database` on a real PostgreSQL server:
 * the example log imported and projected by `pg work --drain`, read back
 * through serve from the projection tables: the same records, participants
 * and audit outcomes as a fold of the file, only the token's companies (a
 * property: another company's id answers exactly as an absent one), the
 * paged list, the company report, and 503 with Retry-After while the
 * database is down, not a hang.
 */
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throwawayPostgres } from '../../support/postgres-server.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli-helpers.js';
import { deliver, eventually, type ServeProcess, secretEnv, startServe } from './serve-process.js';

const database = throwawayPostgres(1, { own: true });

const token = (name: string): string => `pg-token-${name}-0123456789abcdef`;
const TOKENS: Readonly<Record<string, readonly number[]>> = {
  PG_ONE: [1],
  PG_TWO_THREE: [2, 3],
  PG_ALL: [1, 2, 3, 4],
};

interface View {
  readonly id: number;
  readonly companyId: number | null;
  readonly status: string;
  readonly deleted: boolean;
}

let serve: ServeProcess;
let logPath: string;
let truth: Map<number, View>;

const get = (path: string, name: string): Promise<Response> =>
  fetch(`${serve.url}${path}`, { headers: { authorization: `Bearer ${token(name)}` } });

beforeAll(async () => {
  const url = await database.server.createDatabase('read_api');
  logPath = join(await tempDir(), 'events.ndjson');
  await copyFile(join(ROOT, 'examples/events.ndjson'), logPath);
  for (const args of [
    ['pg', 'migrate', '--database', url],
    ['pg', 'import', logPath, '--database', url],
    ['pg', 'work', '--drain', '--database', url],
  ]) {
    const run = await runCli(args);
    expect(run.code, run.stderr).toBe(0);
  }
  const replay = await runCli(['replay', '--json', logPath]);
  truth = new Map(
    (JSON.parse(replay.stdout) as { signRequests: View[] }).signRequests.map((v) => [v.id, v]),
  );
  const args = Object.entries(TOKENS).flatMap(([name, companies]) => [
    '--read-token-env',
    `${name}:${companies.join(',')}`,
  ]);
  const env = secretEnv(Object.fromEntries(Object.keys(TOKENS).map((n) => [n, token(n)])));
  serve = await startServe(['--database', url, '--connect-timeout', '2', ...args], env);
});

afterAll(async () => {
  await serve?.stop();
  await removeTempDirs();
});

describe('read API on PostgreSQL', () => {
  it('answers a request as the file fold does: state, participants, audit outcomes', async () => {
    const id = [...truth.values()].find((v) => v.companyId === 1 && v.status === 'completed')?.id;
    const inspect = await runCli(['inspect', logPath, '--sign-request', String(id)]);
    const response = await get(`/api/sign-requests/${id}`, 'PG_ONE');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const document = (await response.json()) as {
      signRequest: View;
      participants: { id: number }[];
      auditTrail: { position: number; outcome: string }[];
    };
    expect(document.signRequest).toMatchObject(truth.get(id ?? 0) ?? {});
    // inspect's timeline rows: POSITION RECEIVED-AT TYPE ... OUTCOME.
    const timeline = inspect.stdout
      .split('\n')
      .filter((line) => /^\s*\d+\s+\d{4}-/.test(line))
      .map((line) => Number(line.trim().split(/\s+/)[0]));
    expect(document.auditTrail.map((entry) => entry.position)).toEqual(timeline);
    expect(document.participants.length).toBeGreaterThan(0);
  });

  it('never shows another company, and answers its ids as absent ones (property)', async () => {
    const ids = [...truth.keys()];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(TOKENS)),
        fc.oneof(fc.constantFrom(...ids), fc.integer({ min: -5_000_000, max: 5_000_000 })),
        fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
        async (name, id, company) => {
          const companies = new Set(TOKENS[name]);
          const response = await get(`/api/sign-requests/${id}`, name);
          const body = await response.text();
          const known = truth.get(id);
          if (known?.companyId != null && companies.has(known.companyId)) {
            expect(response.status).toBe(200);
          } else {
            expect([response.status, body]).toEqual([404, '{"error":"not found"}\n']);
          }
          const list = await get(
            `/api/sign-requests?limit=500${company === undefined ? '' : `&company=${company}`}`,
            name,
          );
          const page = (await list.json()) as { signRequests: View[] };
          const expected = [...truth.values()]
            .filter(
              (v) =>
                v.companyId !== null &&
                companies.has(v.companyId) &&
                (company === undefined || v.companyId === company) &&
                !v.deleted,
            )
            .map((v) => v.id)
            .sort((a, b) => a - b);
          expect(page.signRequests.map((v) => v.id)).toEqual(expected.slice(0, 500));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('pages by cursor and answers bad parameters 400', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages += 1) {
      const query: string = cursor === null ? 'limit=13' : `limit=13&cursor=${cursor}`;
      const page = (await (await get(`/api/sign-requests?${query}`, 'PG_TWO_THREE')).json()) as {
        signRequests: View[];
        next: string | null;
      };
      seen.push(...page.signRequests.map((v) => v.id));
      cursor = page.next;
      if (cursor === null) break;
    }
    const expected = [...truth.values()]
      .filter((v) => (v.companyId === 2 || v.companyId === 3) && !v.deleted)
      .map((v) => v.id)
      .sort((a, b) => a - b);
    expect(seen).toEqual(expected);
    const bad = await get('/api/sign-requests?limit=100000', 'PG_ONE');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: expect.stringMatching(/^limit must be 1 to 500/) });
    const deleted = (await (await get('/api/sign-requests?status=deleted', 'PG_ALL')).json()) as {
      signRequests: View[];
    };
    expect(deleted.signRequests.map((v) => v.id).sort()).toEqual(
      [...truth.values()]
        .filter((v) => v.deleted)
        .map((v) => v.id)
        .sort(),
    );
  });

  it('renders the report of the token companies from the stored events', async () => {
    const response = await get('/report', 'PG_ONE');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    // Company 1's 1,322 events of the example; never the database URL.
    expect(/<code>[^<]*<\/code>: ([\d,]+) records/.exec(html)?.[1]).toBe('1,322');
    expect(html).not.toContain('postgres://');
  });

  it('answers 503 with Retry-After while the database is down, then reads again', async () => {
    database.server.pause();
    try {
      const started = performance.now();
      const response = await get('/api/sign-requests?limit=1', 'PG_ONE');
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toEqual({ error: expect.any(String) });
      // Bounded by the connect timeout (2 s here), not a hang.
      expect(performance.now() - started).toBeLessThan(15_000);
    } finally {
      database.server.resume();
    }
    await eventually(
      async () => (await get('/api/sign-requests?limit=1', 'PG_ONE')).status === 200,
      'reads after the restart',
    );
    // Deliveries are still stored (the read pool is not theirs).
    const body = JSON.stringify({
      type: 'template-activated',
      companyId: 1,
      templateId: 4242,
      templateName: 'NDA',
      ownerId: 10,
      ownerName: 'O',
    });
    await eventually(
      async () => (await deliver(serve.url, body, { 'x-delivery-id': 'pg-read-1' })).status === 200,
      'a stored delivery',
    );
  });
});
