/**
 * The read API of `signfold serve --log` as a real process: bearer tokens
 * bound to companies (401 without one, 404 for whatever is not the token's,
 * exactly as for what does not exist, by a property), the paged list and its
 * 400s, the rate limit's 429, a delivery readable at once, the live report
 * of a token's companies only, and hostile ids and parameters (400 or 404,
 * never a 500 or a crash).
 */
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli-helpers.js';
import { deliver, type ServeProcess, secretEnv, startServe } from './serve-process.js';

/** Tokens of the tests: long enough for serve's minimum, distinct. */
const token = (name: string): string => `token-${name}-0123456789abcdef`;

/** The token variables of a serve and their companies: `--read-token-env NAME:COMPANIES`. */
const TOKENS: Readonly<Record<string, readonly number[]>> = {
  READ_ONE: [1],
  READ_TWO_THREE: [2, 3],
  READ_FOUR: [4],
  READ_ALL: [1, 2, 3, 4],
  READ_NONE_HERE: [99],
  READ_HAMMERED: [1],
};

const tokenArgs = (): string[] =>
  Object.entries(TOKENS).flatMap(([name, companies]) => [
    '--read-token-env',
    `${name}:${companies.join(',')}`,
  ]);

const tokenEnv = (): NodeJS.ProcessEnv =>
  secretEnv(Object.fromEntries(Object.keys(TOKENS).map((name) => [name, token(name)])));

const get = (serve: ServeProcess, path: string, name?: string, raw?: string): Promise<Response> =>
  fetch(`${serve.url}${path}`, {
    headers:
      name === undefined && raw === undefined
        ? {}
        : { authorization: raw ?? `Bearer ${token(name ?? '')}` },
  });

/** Code points a terminal or a log viewer would act on, as found in `text`. */
const rawControls = (text: string): number[] =>
  [...text]
    .map((c) => c.codePointAt(0) ?? 0)
    .filter(
      (n) => n < 0x20 || (n >= 0x7f && n <= 0x9f) || n === 0x2028 || n === 0x2029 || n === 0x202e,
    );

interface Answer {
  readonly status: number;
  readonly type: string | null;
  readonly body: string;
}

const answer = async (response: Response): Promise<Answer> => ({
  status: response.status,
  type: response.headers.get('content-type'),
  body: await response.text(),
});

interface View {
  readonly id: number;
  readonly companyId: number | null;
  readonly status: string;
  readonly deleted: boolean;
}

let dir: string;
let serve: ServeProcess;
/** Every sign request of the example log with its company, as `replay --json` folds it. */
let truth: Map<number, View>;

beforeAll(async () => {
  dir = await tempDir();
  const log = join(dir, 'events.ndjson');
  await copyFile(join(ROOT, 'examples/events.ndjson'), log);
  const replay = await runCli(['replay', '--json', log]);
  const views = (JSON.parse(replay.stdout) as { signRequests: View[] }).signRequests;
  truth = new Map(views.map((view) => [view.id, view]));
  serve = await startServe(['--log', log, ...tokenArgs()], tokenEnv());
});

afterAll(async () => {
  await serve?.stop();
  await removeTempDirs();
});

describe('read API on a file log: tokens', () => {
  it('answers 401 with WWW-Authenticate: Bearer without a token or with an unknown one', async () => {
    for (const [path, auth] of [
      ['/api/sign-requests', undefined],
      ['/api/sign-requests/100001', undefined],
      ['/report', undefined],
      ['/api/nothing-here', undefined],
      ['/api/sign-requests', 'Bearer not-a-token-of-this-server'],
      ['/api/sign-requests', `Basic ${token('READ_ONE')}`],
      ['/api/sign-requests', `Bearer ${token('READ_ONE')}x`],
      ['/api/sign-requests', 'Bearer'],
    ] as const) {
      const response = await get(serve, path, undefined, auth);
      expect(response.status, `${path} ${auth}`).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="signfold"/);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.json()).toHaveProperty('error');
    }
  });

  it('shows a token its own request with participants and audit trail, and another company the same 404 as an absent id', async () => {
    const [mine] = [...truth.values()].filter((v) => v.companyId === 1 && !v.deleted);
    if (mine === undefined) throw new Error('the example has no request of company 1');
    const own = await get(serve, `/api/sign-requests/${mine.id}`, 'READ_ONE');
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const document = (await own.json()) as {
      signRequest: View;
      participants: { signRequestId: number }[];
      auditTrail: { position: number; type: string; outcome: string }[];
    };
    expect(document.signRequest).toMatchObject({ id: mine.id, companyId: 1, status: mine.status });
    expect(document.participants.every((p) => p.signRequestId === mine.id)).toBe(true);
    expect(document.auditTrail.length).toBeGreaterThan(0);
    expect(document.auditTrail[0]).toMatchObject({ type: expect.any(String), outcome: 'applied' });
    const theirs = await answer(await get(serve, `/api/sign-requests/${mine.id}`, 'READ_FOUR'));
    const absent = await answer(await get(serve, '/api/sign-requests/424242', 'READ_FOUR'));
    expect(theirs).toEqual(absent);
    expect(theirs.status).toBe(404);
  });

  it('never shows a record of another company, and "absent" and "not yours" answer the same (property)', async () => {
    const ids = [...truth.keys()];
    const names = Object.keys(TOKENS).filter((name) => name !== 'READ_HAMMERED');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.oneof(fc.constantFrom(...ids), fc.integer({ min: -2_000_000, max: 2_000_000 })),
        fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
        fc.constantFrom(undefined, 'sent', 'completed', 'declined', 'deleted'),
        async (name, id, company, status) => {
          const companies = new Set(TOKENS[name]);
          const one = await answer(await get(serve, `/api/sign-requests/${id}`, name));
          const known = truth.get(id);
          const visible =
            known !== undefined && known.companyId !== null && companies.has(known.companyId);
          if (visible) {
            expect(one.status).toBe(200);
            const shown = JSON.parse(one.body) as { signRequest: View };
            expect(shown.signRequest.companyId).toBe(known?.companyId);
          } else {
            // Absent or another company's: byte for byte the answer of an id nobody has.
            expect(one).toEqual({
              status: 404,
              type: 'application/json; charset=utf-8',
              body: '{"error":"not found"}\n',
            });
          }
          const params = new URLSearchParams({ limit: '500' });
          if (company !== undefined) params.set('company', String(company));
          if (status !== undefined) params.set('status', status);
          const list = await get(serve, `/api/sign-requests?${params}`, name);
          expect(list.status).toBe(200);
          const page = (await list.json()) as { signRequests: View[] };
          for (const view of page.signRequests) {
            expect(view.companyId !== null && companies.has(view.companyId)).toBe(true);
            if (company !== undefined) expect(view.companyId).toBe(company);
          }
          // What the list shows is exactly the token's (and the filter's) requests.
          const expected = [...truth.values()].filter(
            (v) =>
              v.companyId !== null &&
              companies.has(v.companyId) &&
              (company === undefined || v.companyId === company) &&
              (status === 'deleted' ? v.deleted : !v.deleted && (status ?? v.status) === v.status),
          );
          expect(page.signRequests.map((v) => v.id)).toEqual(
            expected
              .map((v) => v.id)
              .sort((a, b) => a - b)
              .slice(0, 500),
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('read API on a file log: the list', () => {
  it('pages by cursor in id order, every request once, the last page with next null', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 100; pages += 1) {
      const query: string = cursor === null ? 'limit=7' : `limit=7&cursor=${cursor}`;
      const response = await get(serve, `/api/sign-requests?${query}`, 'READ_TWO_THREE');
      expect(response.status).toBe(200);
      const page = (await response.json()) as { signRequests: View[]; next: string | null };
      expect(page.signRequests.length).toBeLessThanOrEqual(7);
      seen.push(...page.signRequests.map((v) => v.id));
      cursor = page.next;
      if (cursor === null) break;
    }
    const expected = [...truth.values()]
      .filter((v) => (v.companyId === 2 || v.companyId === 3) && !v.deleted)
      .map((v) => v.id)
      .sort((a, b) => a - b);
    expect(seen).toEqual(expected);
  });

  it('answers a bad parameter 400 with a one-line JSON error', async () => {
    for (const query of [
      'status=open',
      'limit=0',
      'limit=501',
      'limit=ten',
      'cursor=next',
      'company=acme',
      'stuck-after=7',
      'stuck-after=7d&status=completed',
      'colour=blue',
      'status=sent&status=draft',
    ]) {
      const response = await get(serve, `/api/sign-requests?${query}`, 'READ_ONE');
      expect(response.status, query).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const text = await response.text();
      expect(text.trimEnd().includes('\n'), query).toBe(false);
      expect(JSON.parse(text)).toEqual({ error: expect.any(String) });
    }
  });

  it('lists open requests sent longer ago than stuck-after, and none of another company', async () => {
    const open = [...truth.values()].filter((v) => v.status === 'sent' && !v.deleted);
    const response = await get(serve, '/api/sign-requests?stuck-after=1d&limit=500', 'READ_ALL');
    const page = (await response.json()) as { signRequests: View[] };
    // The example's events are from 2025: every open request with a sent time is stuck by now.
    for (const view of page.signRequests) expect(view.status).toBe('sent');
    expect(page.signRequests.length).toBeLessThanOrEqual(open.length);
    const other = await get(serve, '/api/sign-requests?company=2', 'READ_ONE');
    expect(await other.json()).toEqual({ signRequests: [], next: null });
  });
});

describe('read API on a file log: live state, rate limit, report', () => {
  it('shows a delivery as soon as it is stored', async () => {
    const body = JSON.stringify({
      type: 'sign-request-sent',
      companyId: 4,
      signRequestId: 9_000_001,
      signRequestName: 'Live <b>one</b>',
      templateId: 77,
      templateName: 'T',
      senderId: 1,
      senderName: 'S',
      ownerId: 1,
      ownerName: 'O',
    });
    const stored = await deliver(serve.url, body, { 'x-delivery-id': 'live-1' });
    expect(stored.status).toBe(200);
    const response = await get(serve, '/api/sign-requests/9000001', 'READ_FOUR');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      signRequest: { id: 9_000_001, name: 'Live <b>one</b>', status: 'sent' },
      auditTrail: [{ type: 'sign-request-sent', outcome: 'applied' }],
    });
    expect((await get(serve, '/api/sign-requests/9000001', 'READ_ONE')).status).toBe(404);
  });

  it('answers 429 with Retry-After once a token spends its budget, and other tokens still get answers', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    const mine = [...truth.values()].find((v) => v.companyId === 1)?.id;
    // The bucket holds 100 and refills 50 a second: one request after another, a loaded machine
    // may never empty it. Bursts of 40 at once empty it at any speed; bounded in count.
    while (!statuses.includes(429) && statuses.length < 2000) {
      const burst = Array.from({ length: 40 }, async () => {
        const response = await get(serve, `/api/sign-requests/${mine}`, 'READ_HAMMERED');
        statuses.push(response.status);
        if (response.status === 429) retryAfter ??= response.headers.get('retry-after');
        await response.arrayBuffer();
      });
      await Promise.all(burst);
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s !== 429 && s !== 200)).toEqual([]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await get(serve, `/api/sign-requests/${mine}`, 'READ_ONE')).status).toBe(200);
  });

  it('renders the report of the token companies only, as HTML, on each load', async () => {
    const response = await get(serve, '/report', 'READ_FOUR');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const html = await response.text();
    expect(html).toContain('<!doctype html>');
    expect(html).toContain('companies 4');
    // Company 4's 680 events of the example and the delivery of the test above; no request that
    // only other companies' events name (one event of company 4 names a request of company 3:
    // that event is company 4's own, and is shown).
    // (680 alone when this test runs by itself.)
    expect(/<code>[^<]*<\/code>: (\d+) records/.exec(html)?.[1]).toMatch(/^68[01]$/);
    const lines = (await readFile(join(ROOT, 'examples/events.ndjson'), 'utf8')).split('\n');
    const named = new Set<number>();
    for (const line of lines.filter((l) => l !== '')) {
      let event: { companyId?: unknown; signRequestId?: unknown } | undefined;
      try {
        event = (JSON.parse(line) as { event?: typeof event }).event;
      } catch {
        continue; // The example's bad lines belong to no company.
      }
      if (event?.companyId === 4 && typeof event.signRequestId === 'number') {
        named.add(event.signRequestId);
      }
    }
    const otherIds = [...truth.keys()].filter((id) => !named.has(id));
    expect(otherIds.length).toBeGreaterThan(300);
    for (const id of otherIds) expect(html).not.toContain(`--sign-request ${id}`);
    expect(html).not.toContain(dir);
  });
});

describe('read API on hostile input', () => {
  let hostile: ServeProcess;
  beforeAll(async () => {
    const log = join(await tempDir(), 'hostile.ndjson');
    await copyFile(HOSTILE_CORPUS, log);
    hostile = await startServe(['--log', log, '--read-token-env', 'READ_ONE:1'], tokenEnv());
  });
  afterAll(async () => {
    await hostile?.stop();
  });

  it('answers hostile ids and parameters 400 or 404, never a 500, and keeps serving', async () => {
    const huge = '9'.repeat(5000);
    const paths = [
      '/api/sign-requests/',
      '/api/sign-requests/abc',
      '/api/sign-requests/-1',
      '/api/sign-requests/0',
      `/api/sign-requests/${huge}`,
      '/api/sign-requests/99999999999999999999',
      '/api/sign-requests/1e3',
      '/api/sign-requests/0x10',
      '/api/sign-requests/5001.0',
      '/api/sign-requests/%00',
      '/api/sign-requests/%0d%0aSet-Cookie:%20x=1',
      '/api/sign-requests/%E2%80%AE5001',
      '/api/sign-requests/%EF%BC%95%EF%BC%90%EF%BC%90%EF%BC%91',
      '/api/sign-requests/5001/participants',
      '/api/sign-requests/5001%2F..',
      '/api/sign-requests/..%2F..%2Fetc%2Fpasswd',
      '/api/',
      '/api',
      `/api/sign-requests?limit=-1`,
      `/api/sign-requests?limit=${huge}`,
      '/api/sign-requests?limit=1.5',
      '/api/sign-requests?cursor=-99999999999999999999',
      '/api/sign-requests?cursor=%00',
      '/api/sign-requests?company=%1b%5b2J',
      '/api/sign-requests?status=%0a',
      `/api/sign-requests?status=${'x'.repeat(4000)}`,
      '/api/sign-requests?stuck-after=0d',
      '/api/sign-requests?stuck-after=999999999w',
      '/api/sign-requests?stuck-after=-1d',
      `/api/sign-requests?${'a'.repeat(4000)}=1`,
      '/api/sign-requests?%ZZ=1',
      '/api/sign-requests?limit',
      '/api/sign-requests?&&&',
    ];
    for (const path of paths) {
      const response = await get(hostile, path, 'READ_ONE');
      expect([200, 400, 404], path).toContain(response.status);
      expect(response.headers.get('content-type'), path).toBe('application/json; charset=utf-8');
      const text = await response.text();
      expect(text.trimEnd().includes('\n'), path).toBe(false);
      // Nothing a client sent comes back raw: no control character in the answer.
      expect(rawControls(text.trimEnd()), path).toEqual([]);
      JSON.parse(text);
    }
    expect((await get(hostile, '/api/sign-requests/5001', 'READ_ONE')).status).toBe(200);
    const page = await get(hostile, '/api/sign-requests?limit=500', 'READ_ONE');
    expect(page.status).toBe(200);
    const report = await get(hostile, '/report', 'READ_ONE');
    expect(report.status).toBe(200);
    expect(await report.text()).not.toMatch(/<script>alert|<img src=x onerror/i);
    expect(hostile.child.exitCode).toBeNull();
    expect(hostile.logLines().filter((line) => line.status === 500)).toEqual([]);
  });

  it('refuses a missing, short or shared token variable at start with one line (exit 2)', async () => {
    const log = join(await tempDir(), 'events.ndjson');
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [['--read-token-env', 'NOPE:1'], secretEnv(), /NOPE: the variable is unset or empty/],
      [['--read-token-env', 'SHORT:1'], secretEnv({ SHORT: 'abc' }), /at least 16 characters/],
      [['--read-token-env', 'NO_COMPANIES'], secretEnv(), /name the companies/],
      [['--read-token-env', 'X:1,two'], secretEnv(), /company ids separated by commas/],
      [
        ['--read-token-env', 'A:1', '--read-token-env', 'B:2'],
        secretEnv({ A: token('same'), B: token('same') }),
        /B holds the same token as A/,
      ],
    ];
    for (const [args, env, message] of cases) {
      const run = await runCli(['serve', '--log', log, '--port', '0', ...args], ROOT, env);
      expect(run.code, run.stderr).toBe(2);
      const lines = run.stderr.split('\n').filter((line) => line !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      expect(run.stderr).not.toContain(token('same'));
    }
  });
});
