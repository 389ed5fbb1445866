/**
 * The `verify` hook: the provider of docs/webhooks.md ("A provider no option fits") run from the
 * page's own snippet, as its sender would deliver (a GET handshake echoing a header, the signature
 * and timestamp in the query string, a fixed reply text); and what the handler does with a hook
 * that throws, returns nonsense or refuses, with any method, and the URL handleNodeRequest passes.
 */
import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../src/engine/event-log.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { handleNodeRequest, type NodeWebhookRequest } from '../../src/webhooks/node-request.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';
import type {
  Verification,
  WebhookHandler,
  WebhookOutcome,
} from '../../src/webhooks/webhook-types.js';
import { ROOT } from '../cli/cli-helpers.js';
import { withBuiltImports } from '../support/built-imports.js';

// esbuild's service is a child process: it must end with the file (test/support/process-fixture.ts).
afterAll(async () => (await import('esbuild')).stop());

const SECRET = 'quill secret';
const TEMPLATE =
  '{"type":"template-activated","companyId":1,"templateId":1001,"templateName":"NDA","ownerId":10,"ownerName":"Olive"}';
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The page's snippet, given a memory log and the secret, as a module exporting handler and log. */
const quillHandler = async (): Promise<{
  handler: WebhookHandler;
  log: ReturnType<typeof createMemoryEventLog>;
}> => {
  const page = await readFile(join(ROOT, 'docs/webhooks.md'), 'utf8');
  const after = page.slice(page.indexOf('\n### A provider no option fits\n'));
  const code = /```ts\n([\s\S]*?)```/.exec(after)?.[1];
  if (code === undefined) throw new Error('no ts block under ### A provider no option fits');
  const module = `${withBuiltImports("import { createMemoryEventLog } from 'signfold/file';")}
const log = createMemoryEventLog();
const secret = ${JSON.stringify(SECRET)};
${withBuiltImports(code)}
export { handler, log };
`;
  await mkdir(join(ROOT, 'node_modules/.cache'), { recursive: true });
  const dir = await mkdtemp(join(ROOT, 'node_modules/.cache/signfold-hook-'));
  dirs.push(dir);
  const file = join(dir, 'quill.mjs');
  await writeFile(file, (await transform(module, { loader: 'ts', format: 'esm' })).code);
  return import(pathToFileURL(file).href);
};

const records = async (log: ReturnType<typeof createMemoryEventLog>): Promise<LogRecord[]> => {
  const all: LogRecord[] = [];
  for await (const batch of log.read()) all.push(...batch);
  return all;
};

/** A delivery as Quill sends it. */
const quillPost = (body: string, id: string, ts = Math.floor(Date.now() / 1000), key = SECRET) => {
  const sig = createHmac('sha256', key).update(`${ts}:${body}`).digest('hex');
  return {
    method: 'POST',
    url: `/webhooks?ts=${ts}&sig=${sig}`,
    headers: { 'x-quill-event': id },
    body: Buffer.from(body),
  };
};

describe('the documented provider, through the page snippet', () => {
  it('answers the GET handshake by echoing the challenge, storing nothing', async () => {
    const { handler, log } = await quillHandler();
    const answer = await handler({
      method: 'GET',
      url: '/webhooks',
      headers: { 'x-quill-challenge': 'c-42' },
      body: new Uint8Array(0),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-quill-response']).toBe('c-42');
    expect(answer.outcome).toEqual({ kind: 'answered', status: 200, deliveryId: undefined });
    expect(await records(log)).toEqual([]);
  });

  it('stores a delivery signed in the query string, replies its fixed text; a redelivery is a duplicate', async () => {
    const { handler, log } = await quillHandler();
    const first = await handler(quillPost(TEMPLATE, 'q-1'));
    expect([first.status, first.body]).toEqual([200, 'accepted']);
    expect(first.outcome).toMatchObject({ kind: 'stored', deliveryId: 'q-1', position: 1 });
    const again = await handler(quillPost(TEMPLATE, 'q-1'));
    expect([again.status, again.body]).toEqual([200, 'accepted']);
    expect(again.outcome).toMatchObject({ kind: 'duplicate', position: 1 });
    expect((await records(log)).map((r) => (r.kind === 'entry' ? r.deliveryId : r.kind))).toEqual([
      'q-1',
    ]);
  });

  it('refuses a wrong key, a changed body, a stale timestamp, a missing id, and other methods', async () => {
    const { handler, log } = await quillHandler();
    const wrongKey = await handler(quillPost(TEMPLATE, 'q-2', undefined, 'other'));
    expect(wrongKey.status).toBe(401);
    const changed = { ...quillPost(TEMPLATE, 'q-3'), body: Buffer.from(`${TEMPLATE} `) };
    expect((await handler(changed)).status).toBe(401);
    const stale = await handler(quillPost(TEMPLATE, 'q-4', Math.floor(Date.now() / 1000) - 3600));
    expect(JSON.parse(stale.body)).toEqual({ error: 'timestamp missing or outside 5 minutes' });
    const { headers: _id, ...noId } = quillPost(TEMPLATE, 'q-5');
    expect((await handler({ ...noId, headers: {} })).status).toBe(400);
    const put = { ...quillPost(TEMPLATE, 'q-6'), method: 'PUT' };
    expect((await handler(put)).status).toBe(405);
    expect(await records(log)).toEqual([]);
  });
});

describe('a hook that misbehaves is answered, never thrown', () => {
  const withHook = (verify: () => Verification | Promise<Verification>) => {
    const outcomes: WebhookOutcome[] = [];
    const handler = createWebhookHandler({
      log: createMemoryEventLog(),
      secrets: [],
      verify,
      onOutcome: (o) => outcomes.push(o),
    });
    return { handler, outcomes };
  };
  const post = { method: 'POST', headers: {}, body: Buffer.from(TEMPLATE) };

  it.each([
    [
      'throws',
      () => {
        throw new Error('boom');
      },
      /the verify hook failed: boom/,
    ],
    ['rejects', () => Promise.reject(new Error('later')), /the verify hook failed: later/],
    ['returns nothing', () => undefined as unknown as Verification, /returned no verification/],
    [
      'returns an unknown kind',
      () => ({ kind: 'maybe' }) as unknown as Verification,
      /unknown kind/,
    ],
    [
      'returns a bad reply',
      () => ({ kind: 'reply', reply: { status: 99, body: '' } }) as Verification,
      /invalid reply/,
    ],
    [
      'returns bad companies',
      () => ({ kind: 'verified', companies: ['1'] }) as unknown as Verification,
      /companies/,
    ],
  ])('%s: 503 with the reason', async (_name, hook, reason) => {
    const { handler } = withHook(hook);
    const answer = await handler(post);
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body).error).toMatch(reason);
  });

  it('companies from the hook bind the delivery like a bound secret', async () => {
    const { handler, outcomes } = withHook(() => ({ kind: 'verified', companies: [2] }));
    expect((await handler(post)).status).toBe(403);
    expect(outcomes[0]).toMatchObject({
      kind: 'forbidden',
      reason: 'secret not allowed for company 1',
    });
  });

  it('a hook is exclusive with secrets, signature and insecureNoSignature', () => {
    const log = createMemoryEventLog();
    const verify = (): Verification => ({ kind: 'refused', reason: 'no' });
    expect(() => createWebhookHandler({ log, secrets: ['k'], verify })).toThrow(
      /replaces the built-in/,
    );
    expect(() => createWebhookHandler({ log, secrets: [], verify, signature: 'hmac' })).toThrow(
      /replaces the built-in/,
    );
  });

  it('handleNodeRequest hands the hook the request URL', async () => {
    let seen = '';
    const hooked = createWebhookHandler({
      log: createMemoryEventLog(),
      secrets: [],
      verify: (request) => {
        seen = request.url;
        return { kind: 'refused', reason: 'seen' };
      },
    });
    // One listener type for every event: the glue calls each with what that event carries.
    const listeners = new Map<string, (chunk: never) => void>();
    const request: NodeWebhookRequest = {
      method: 'POST',
      url: '/webhooks?sig=abc',
      headers: {},
      on: (event: string, listener: (chunk: never) => void) => listeners.set(event, listener),
      resume: () => undefined,
    };
    const written: number[] = [];
    const response = {
      headersSent: false,
      writeHead: (status: number) => written.push(status),
      end: () => undefined,
    };
    const done = handleNodeRequest(hooked, request, response, { maxBodyBytes: 1024 });
    listeners.get('data')?.(Buffer.from(TEMPLATE) as never);
    listeners.get('end')?.(undefined as never);
    await done;
    expect(seen).toBe('/webhooks?sig=abc');
    expect(written).toEqual([401]);
  });
});
