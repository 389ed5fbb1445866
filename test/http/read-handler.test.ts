/**
 * `createReadHandler` on a file log, mounted in Hono and in node:http (the
 * issue's "done when"): a token bound to one company reads that company's
 * request (200, with its state), another company's is 404 as if absent, a
 * request without a token is 401, and a request appended to the log after
 * start is readable within 5 seconds. Also the list, the report of the
 * token's companies only, the options refused, and `ready` and `close`.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../src/core/builders/plain-builders.js';
import { createReadHandler } from '../../src/http/read-handler.js';
import { openFileEventLog } from '../../src/store/file-event-log.js';
import { removeTempDirs, tempDir } from '../cli/cli-helpers.js';
import { eventually } from '../support/eventually.js';
import { MOUNTS } from './fixtures/mount.js';
import { mountedReads, readEvents } from './fixtures/mounted-reads.js';

const ACME = 'token-of-acme-only-0123456789';
const BOTH = 'token-of-both-companies-0123456789';

let dir: string;
let log: Awaited<ReturnType<typeof openFileEventLog>>;
afterAll(async () => {
  if (log?.isOk()) await log.value.close();
  await removeTempDirs();
});

beforeAll(async () => {
  dir = await tempDir();
  log = await openFileEventLog(join(dir, 'events.ndjson'));
  const writer = log._unsafeUnwrap();
  for (const event of readEvents()) await writer.append(event);
});

const writer = () => log._unsafeUnwrap();

describe.each(Object.keys(MOUNTS) as (keyof typeof MOUNTS)[])('mounted in %s', (mountName) => {
  const { url, get } = mountedReads(mountName, () => ({
    log: join(dir, 'events.ndjson'),
    tokens: [
      { token: ACME, companies: [1] },
      { token: BOTH, companies: [1, 2] },
    ],
    followMs: 200,
  }));

  it("answers the token's company's request 200 with its state", async () => {
    const answer = await get('/api/sign-requests/101', ACME);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const document = (await answer.json()) as {
      signRequest: { id: number; companyId: number; status: string };
      auditTrail: unknown[];
    };
    expect(document.signRequest).toMatchObject({ id: 101, companyId: 1, status: 'completed' });
    // The outcome time is the completion's receivedAt, as the audit trail shows it.
    const completion = document.auditTrail[1] as { receivedAt: string };
    expect(document.signRequest).toMatchObject({
      completedAt: completion.receivedAt,
      declinedAt: null,
      deletedAt: null,
      outcomeFrom: 'event',
    });
    expect(document.auditTrail).toHaveLength(2);
  });

  it("answers another company's request 404, exactly as one that does not exist", async () => {
    const other = await get('/api/sign-requests/201', ACME);
    const absent = await get('/api/sign-requests/999', ACME);
    expect([other.status, await other.text()]).toEqual([404, '{"error":"not found"}\n']);
    expect([absent.status, await absent.text()]).toEqual([404, '{"error":"not found"}\n']);
    const seen = await get('/api/sign-requests/201', BOTH);
    expect(seen.status).toBe(200);
    await seen.arrayBuffer();
  });

  it('answers a request without a token, or with an unknown one, 401', async () => {
    const none = await get('/api/sign-requests/101');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="signfold"');
    expect(await none.json()).toEqual({ error: 'a bearer token is required' });
    const unknown = await get('/api/sign-requests/101', 'not-a-token-of-anyone-0123');
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ error: 'unknown bearer token' });
    const report = await get('/report');
    expect(report.status).toBe(401);
    await report.arrayBuffer();
  });

  it("lists the token's requests, checks the query, and 404s other paths", async () => {
    const list = await get('/api/sign-requests?status=completed', BOTH);
    expect(await list.json()).toMatchObject({ signRequests: [{ id: 101 }], next: null });
    const bad = await get('/api/sign-requests?stauts=sent', BOTH);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/unknown parameter 'stauts'/);
    const elsewhere = await get('/elsewhere', BOTH);
    expect(elsewhere.status).toBe(404);
    await elsewhere.arrayBuffer();
    const post = await fetch(`${url()}/api/sign-requests`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ACME}` },
      body: '{}',
    });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    await post.arrayBuffer();
  });

  it("serves the report of the token's companies only", async () => {
    const page = await get('/report', ACME);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('the live state of companies 1');
    expect(html).not.toContain('the live state of companies 1, 2');
  });

  it('reads a request appended to the log after start within 5 seconds', async () => {
    const id = mountName === 'Hono' ? 102 : 103;
    const before = await get(`/api/sign-requests/${id}`, ACME);
    expect(before.status).toBe(404);
    await before.arrayBuffer();
    await writer().append(events.signRequestSent({ signRequestId: id, companyId: 1 }));
    const started = Date.now();
    let status = 0;
    await eventually(
      async () => {
        const after = await get(`/api/sign-requests/${id}`, ACME);
        status = after.status;
        await after.arrayBuffer();
        return status === 200;
      },
      `request ${id} readable`,
      { deadlineMs: 5000, intervalMs: 50 },
    );
    expect(Date.now() - started).toBeLessThan(5000);
    const after = await get(`/api/sign-requests/${id}`, ACME);
    expect(await after.json()).toMatchObject({ signRequest: { id, status: 'sent' } });
  });
});

describe('createReadHandler options', () => {
  const tokens = [{ token: ACME, companies: [1] }];

  it('asks for exactly one of log and database', () => {
    expect(() => createReadHandler({ tokens })).toThrow(/exactly one of log/);
    expect(() =>
      createReadHandler({ log: 'a.ndjson', database: 'postgres://x/y', tokens }),
    ).toThrow(/exactly one of log/);
  });

  it('refuses a short token, one bound to no company, and the same token twice, naming neither', () => {
    const short = () =>
      createReadHandler({ log: 'a', tokens: [{ token: 'short', companies: [1] }] });
    expect(short).toThrow('tokens[0]: the token must be at least 16 characters');
    const none = () => createReadHandler({ log: 'a', tokens: [{ token: ACME, companies: [] }] });
    expect(none).toThrow('tokens[0]: the token must see at least one company');
    const twice = () =>
      createReadHandler({
        log: 'a',
        tokens: [
          { token: ACME, companies: [1] },
          { token: ACME, companies: [2] },
        ],
      });
    expect(twice).toThrow('tokens[1]: the token is the same as another token');
    for (const attempt of [short, none, twice]) {
      expect(() => attempt()).not.toThrow(new RegExp(ACME));
    }
  });

  it('rejects ready on a log that cannot be read, and answers 503 until closed', async () => {
    const reads = createReadHandler({ log: join(dir, 'absent', 'events.ndjson'), tokens });
    await expect(reads.ready).rejects.toThrow();
    const answer = await reads.fetch(
      new Request('http://localhost/api/sign-requests/1', {
        headers: { authorization: `Bearer ${ACME}` },
      }),
    );
    expect([answer.status, answer.headers.get('retry-after')]).toEqual([503, '5']);
    await reads.close();
    await reads.close();
  });
});
