/**
 * Report links on `createReadHandler`: a link from `createReadLink` lands
 * with a 303 to the same page without it and a cookie (HttpOnly,
 * SameSite=Lax, Secure and `__Host-` over https, a life no longer than the
 * link's); the cookie then opens the report and the read API for the link's
 * companies only. An expired, changed or forged link or cookie is a 401
 * page, never a 500, whatever the bytes (the hostile corpus, mutations,
 * oversized values); a cookie is no link and a link no cookie; changing the
 * token revokes both.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../src/core/builders/plain-builders.js';
import { signGrant } from '../../src/http/read-grant.js';
import { createReadHandler, type ReadHandler } from '../../src/http/read-handler.js';
import { createReadLink } from '../../src/http/read-link.js';
import { openFileEventLog } from '../../src/store/file-event-log.js';
import { removeTempDirs, tempDir } from '../cli/cli-helpers.js';
import { HOSTILE_CORPUS } from '../support/hostile-corpus.js';
import { MOUNTS } from './fixtures/mount.js';

const ACME = 'token-of-acme-only-0123456789';
const BOTH = 'token-of-both-companies-0123456789';
const BASE = 'http://reports.test';

let path: string;
let reads: ReadHandler;

beforeAll(async () => {
  path = join(await tempDir(), 'events.ndjson');
  const log = (await openFileEventLog(path))._unsafeUnwrap();
  await log.append(events.signRequestSent({ signRequestId: 101, companyId: 1 }));
  await log.append(events.signRequestSent({ signRequestId: 201, companyId: 2 }));
  await log.close();
  reads = createReadHandler({
    log: path,
    tokens: [
      { token: ACME, companies: [1] },
      { token: BOTH, companies: [1, 2] },
    ],
  });
  await reads.ready;
});

afterAll(async () => {
  await reads?.close();
  await removeTempDirs();
});

const get = (
  target: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Response> =>
  reads.fetch(new Request(new URL(target, BASE), { method, headers, redirect: 'manual' }));

/** The `name=value` of the one cookie a landing sets, and its attributes. */
const cookieOf = (response: Response): { pair: string; attributes: string[] } => {
  const [set] = response.headers.getSetCookie();
  const [pair = '', ...attributes] = (set ?? '').split(';').map((part) => part.trim());
  return { pair, attributes };
};

const landed = async (link: string, headers: Record<string, string> = {}) => {
  const response = await get(link, headers);
  expect(response.status).toBe(303);
  return { response, ...cookieOf(response) };
};

const ids = async (response: Response): Promise<number[]> =>
  ((await response.json()) as { signRequests: { id: number }[] }).signRequests.map(({ id }) => id);

describe('a link that works', () => {
  it('lands on /report without the link, with an HttpOnly, SameSite=Lax cookie of the link’s life', async () => {
    const link = createReadLink({ token: ACME, url: BASE, expiresInMs: 3_600_000 });
    expect(link).toMatch(/^http:\/\/reports\.test\/report\?link=[0-9]+\.all\.p\.[\w-]{43}$/);
    const { response, pair, attributes } = await landed(link);
    expect(response.headers.get('location')).toBe('./report');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(pair).toMatch(/^signfold-read=[0-9]+\.all\.p\.[\w-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax']));
    expect(attributes).not.toContain('Secure');
    const maxAge = Number(attributes.find((a) => a.startsWith('Max-Age='))?.slice(8));
    expect(maxAge).toBeGreaterThan(3590);
    expect(maxAge).toBeLessThanOrEqual(3600);
    // The cookie is not the link: it carries a grant of its own.
    expect(pair.split('=')[1]).not.toBe(new URL(link).searchParams.get('link'));

    const report = await get('/report', { cookie: pair });
    expect(report.status).toBe(200);
    expect(await report.text()).toContain('the live state of companies 1<');
  });

  it('opens the read API’s pages with the cookie, for the token’s companies only', async () => {
    const { pair } = await landed(createReadLink({ token: ACME, url: BASE }));
    const list = await get('/api/sign-requests', { cookie: `other=1; ${pair}; more=2` });
    expect(list.status).toBe(200);
    expect(await ids(list)).toEqual([101]);
    expect((await get('/api/sign-requests/101', { cookie: pair })).status).toBe(200);
    expect((await get('/api/sign-requests/201', { cookie: pair })).status).toBe(404);
  });

  it('lands on any read page, keeping its other parameters', async () => {
    const link = new URL(createReadLink({ token: BOTH, url: BASE }));
    const grant = link.searchParams.get('link') ?? '';
    const { response } = await landed(`/api/sign-requests?limit=1&link=${grant}&state=sent`);
    expect(response.headers.get('location')).toBe('./sign-requests?limit=1&state=sent');
    const one = await landed(`/api/sign-requests/201?link=${grant}`);
    expect(one.response.headers.get('location')).toBe('./201');
    expect((await get('/api/sign-requests/201', { cookie: one.pair })).status).toBe(200);
  });

  it('sees only the companies it names, when they are some of the token’s', async () => {
    const { pair } = await landed(createReadLink({ token: BOTH, url: BASE, companies: [2] }));
    expect(await ids(await get('/api/sign-requests', { cookie: pair }))).toEqual([201]);
    const beyond = await get(createReadLink({ token: ACME, url: BASE, companies: [1, 2] }));
    expect(beyond.status).toBe(401);
  });

  it('is Secure (a __Host- cookie) when made for https, or reached over https', async () => {
    const https = await landed(createReadLink({ token: ACME, url: 'https://reports.test' }));
    expect(https.pair).toMatch(/^__Host-signfold-read=/);
    expect(https.attributes).toEqual(expect.arrayContaining(['Secure', 'Path=/']));
    const grant = new URL(createReadLink({ token: ACME, url: BASE })).searchParams.get('link');
    const proxied = await landed(`/report?link=${grant}`, { 'x-forwarded-proto': 'https' });
    expect(proxied.attributes).toContain('Secure');
    const direct = await reads.fetch(
      new Request(`https://reports.test/report?link=${grant}`, { redirect: 'manual' }),
    );
    expect(cookieOf(direct).attributes).toContain('Secure');
    // Either name opens the report.
    expect((await get('/report', { cookie: https.pair })).status).toBe(200);
  });

  it('answers HEAD with the landing and no body; another method is 405', async () => {
    const link = createReadLink({ token: ACME, url: BASE });
    const head = await get(link, {}, 'HEAD');
    expect(head.status).toBe(303);
    expect(await head.text()).toBe('');
    expect((await get(link, {}, 'POST')).status).toBe(405);
  });

  it('goes through node:http with its cookie', async () => {
    const mounted = await MOUNTS['node:http'](reads);
    try {
      const link = createReadLink({ token: ACME, url: mounted.url });
      const landing = await fetch(link, { redirect: 'manual' });
      expect(landing.status).toBe(303);
      const { pair } = cookieOf(landing);
      const report = await fetch(new URL(landing.headers.get('location') ?? '', link), {
        headers: { cookie: pair },
      });
      expect(report.status).toBe(200);
      expect(report.url).toBe(`${mounted.url}/report`);
    } finally {
      await mounted.close();
    }
  });
});

describe('a link or cookie that does not', () => {
  const expectRefusal = async (response: Response, says: RegExp): Promise<void> => {
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="signfold"');
    const page = await response.text();
    expect(page).toMatch(says);
    expect(page.length).toBeLessThan(1000);
  };

  it('is 401 with a page saying the link expired', async () => {
    const link = createReadLink({
      token: ACME,
      url: BASE,
      expiresInMs: 60_000,
      now: new Date(Date.now() - 120_000),
    });
    await expectRefusal(await get(link), /has expired/);
  });

  it('is 401 once the token is changed, or the link is', async () => {
    const other = createReadLink({ token: 'a-token-this-server-never-had-0123', url: BASE });
    await expectRefusal(await get(other), /not valid/);
    const link = createReadLink({ token: ACME, url: BASE });
    const changed = link.replace(/\.all\./, '.1_2.');
    await expectRefusal(await get(changed), /not valid/);
    const later = link.replace(/link=([0-9]+)/, (_, expires) => `link=${Number(expires) + 86_400}`);
    await expectRefusal(await get(later), /not valid/);
    await expectRefusal(
      await get(`${link}&link=${new URL(link).searchParams.get('link')}`),
      /not valid/,
    );
  });

  it('is 401 for an expired or changed cookie, which it clears', async () => {
    const expired = signGrant(ACME, 'cookie', {
      expires: Math.floor(Date.now() / 1000) - 1,
      companies: undefined,
      secure: false,
    });
    const response = await get('/report', { cookie: `signfold-read=${expired}` });
    expect(response.headers.getSetCookie()).toEqual([
      'signfold-read=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax',
    ]);
    await expectRefusal(response, /has expired/);
    await expectRefusal(
      await get('/api/sign-requests', { cookie: 'signfold-read=x' }),
      /not valid/,
    );
  });

  it('keeps a cookie from being a link, and a link from being a cookie', async () => {
    const { pair } = await landed(createReadLink({ token: ACME, url: BASE }));
    const cookieGrant = pair.split('=')[1] ?? '';
    await expectRefusal(await get(`/report?link=${cookieGrant}`), /not valid/);
    const linkGrant = new URL(createReadLink({ token: ACME, url: BASE })).searchParams.get('link');
    await expectRefusal(
      await get('/report', { cookie: `signfold-read=${linkGrant}` }),
      /not valid/,
    );
  });

  it('lets a bearer header speak for the request, and keeps 401 JSON for no credential', async () => {
    const unknown = await get(createReadLink({ token: ACME, url: BASE }), {
      authorization: 'Bearer not-a-known-token-0123456789',
    });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ error: 'unknown bearer token' });
    const none = await get('/report');
    expect(await none.json()).toEqual({ error: 'a bearer token is required' });
  });
});

describe('hostile links and cookies', () => {
  const statusOf = async (link: string | undefined, cookie: string | undefined) => {
    const headers: Record<string, string> = cookie === undefined ? {} : { cookie };
    const target = link === undefined ? '/report' : `/report?link=${link}`;
    return (await get(target, headers)).status;
  };

  it('answers every line of the hostile corpus, as a link and as a cookie, 401', async () => {
    const lines = (await readFile(HOSTILE_CORPUS, 'latin1')).split('\n');
    const grant = new URL(createReadLink({ token: ACME, url: BASE })).searchParams.get('link');
    for (const line of lines) {
      expect(await statusOf(encodeURIComponent(line), undefined)).toBe(401);
      // Beside a valid link, whatever else the URL holds is carried to the page as it came.
      const beside = await get(`/api/x${line.slice(0, 30)}?q=${line}&link=${grant}`);
      expect(beside.status).toBe(303);
      expect(beside.headers.get('location')).not.toContain('link=');
      // A header holds no CR, LF or NUL (node's parser refuses them before any handler).
      const header = line.replace(/[\0\r\n]/g, '');
      if (header.trim() !== '') {
        expect(await statusOf(undefined, `signfold-read=${header}`)).toBe(401);
      }
    }
  });

  it('answers oversized and numerous values 401', async () => {
    const grant = new URL(createReadLink({ token: ACME, url: BASE })).searchParams.get('link');
    expect(await statusOf(`${grant}${'A'.repeat(100_000)}`, undefined)).toBe(401);
    expect(await statusOf('9'.repeat(400), undefined)).toBe(401);
    expect(await statusOf(`${'1_'.repeat(5000)}1.all.p.${'A'.repeat(43)}`, undefined)).toBe(401);
    const many = Array.from({ length: 50 }, () => `signfold-read=${grant}`).join('; ');
    expect(await statusOf(undefined, many)).toBe(401);
    expect(await statusOf('%', undefined)).toBe(401);
    expect(await statusOf('%E0%A4%A', undefined)).toBe(401);
  });

  it('answers any change to a valid link or cookie 401 (never 500), and the unchanged one works', async () => {
    const link = new URL(createReadLink({ token: BOTH, url: BASE, companies: [1, 2] }));
    const grant = link.searchParams.get('link') ?? '';
    const { pair } = await landed(link.href);
    const cookie = pair.split('=')[1] ?? '';
    const mutated = (text: string) =>
      fc.oneof(
        fc
          .tuple(fc.nat(text.length - 1), fc.integer({ min: 33, max: 126 }))
          .map(
            ([at, code]) => `${text.slice(0, at)}${String.fromCharCode(code)}${text.slice(at + 1)}`,
          ),
        fc.nat(text.length - 1).map((at) => text.slice(0, at)),
        fc.string({ maxLength: 80 }).map((tail) => `${text}${tail}`),
        fc.string({ maxLength: 200 }),
      );
    await fc.assert(
      fc.asyncProperty(mutated(grant), mutated(cookie), async (newLink, newCookie) => {
        const linkStatus = await statusOf(encodeURIComponent(newLink), undefined);
        expect(linkStatus).toBe(newLink === grant ? 303 : 401);
        const cookieText = newCookie.replace(/[^\x20-\x7e]/g, '');
        const cookieStatus = await statusOf(undefined, `signfold-read=${cookieText}`);
        // The unchanged cookie is the token's client, with the token's budget of reports.
        // (A Cookie header's spaces around a value are no part of it, and a `;` ends it: what
        // follows is another cookie.)
        const seen = (cookieText.split(';')[0] ?? '').trim();
        if (seen === cookie) expect([200, 429]).toContain(cookieStatus);
        else expect(cookieStatus).toBe(401);
      }),
      { numRuns: 150 },
    );
  });
});
