/**
 * The handler over real HTTP on 127.0.0.1, under node:http (handleNodeRequest)
 * and Hono (@hono/node-server), on the file log and the memory log: wrong,
 * missing and rotated secrets, algorithms and encodings, the prefix, a
 * replayed and a future timestamp, oversize, non-JSON, wrong method, storage
 * down (503 + Retry-After, nothing stored), duplicates. node:http alone:
 * an oversize body is refused while the client is still sending it.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventLog, LogRecord } from '../../src/engine/event-log.js';
import { openFileEventLog } from '../../src/store/file-event-log.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { handleNodeRequest } from '../../src/webhooks/node-request.js';
import { signWebhookBody } from '../../src/webhooks/sign-payload.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';
import type {
  SignatureOptions,
  WebhookHandlerOptions,
  WebhookOutcome,
} from '../../src/webhooks/webhook-types.js';
import { removeTempDirs, tempDir } from '../cli/cli-helpers.js';
import {
  type Served,
  send,
  sendUnfinished,
  serveHono,
  serveNode,
} from './fixtures/http-servers.js';

afterAll(removeTempDirs);

const MAX = 4096;
const TEMPLATE =
  '{"type":"template-activated","companyId":1,"templateId":1001,"templateName":"NDA","ownerId":10,"ownerName":"Olive"}';
const bytes = (text: string) => new TextEncoder().encode(text);

type LogUnderTest = EventLog & { readonly close: () => Promise<void> };
const LOGS: Record<string, () => Promise<LogUnderTest>> = {
  file: async () =>
    (await openFileEventLog(join(await tempDir(), 'events.ndjson')))._unsafeUnwrap(),
  memory: async () => createMemoryEventLog(),
};
const SERVERS = { 'node:http': serveNode, Hono: serveHono };

const storedOf = async (log: EventLog): Promise<LogRecord[]> => {
  const all: LogRecord[] = [];
  for await (const batch of log.read()) all.push(...batch);
  return all;
};

describe.each(Object.keys(SERVERS) as (keyof typeof SERVERS)[])('%s', (serverName) => {
  describe.each(Object.keys(LOGS))('on the %s log', (logName) => {
    const start = async (options: Partial<WebhookHandlerOptions> = {}) => {
      const log = await (LOGS[logName] as () => Promise<LogUnderTest>)();
      const handler = createWebhookHandler({
        log,
        secrets: ['current', 'previous'],
        maxBodyBytes: MAX,
        ...options,
      });
      const served: Served = await SERVERS[serverName](handler, MAX);
      return { log, served };
    };

    it('stores a signed delivery once, by either secret, prefixed or not; refuses wrong and missing ones', async () => {
      const { log, served } = await start();
      try {
        const body = bytes(TEMPLATE);
        const byCurrent = signWebhookBody(body, 'current');
        const first = await send(served.url, body, {
          'x-signature': byCurrent,
          'x-delivery-id': 'd-1',
        });
        expect([first.status, first.body]).toEqual([200, { position: 1, duplicate: false }]);
        // Redelivered, signed by the previous secret with the prefix: a duplicate.
        const again = await send(served.url, body, {
          'x-signature': `sha256=${signWebhookBody(body, 'previous')}`,
          'x-delivery-id': 'd-1',
        });
        expect([again.status, again.body]).toEqual([200, { position: 1, duplicate: true }]);
        const wrong = await send(served.url, body, {
          'x-signature': signWebhookBody(body, 'retired'),
          'x-delivery-id': 'd-2',
        });
        expect([wrong.status, wrong.body]).toEqual([401, { error: 'signature does not match' }]);
        const missing = await send(served.url, body, { 'x-delivery-id': 'd-3' });
        expect([missing.status, missing.body]).toEqual([
          401,
          { error: 'missing signature header x-signature' },
        ]);
        // Signed for another body.
        const swapped = await send(served.url, bytes(`${TEMPLATE} `), { 'x-signature': byCurrent });
        expect(swapped.status).toBe(401);
        const records = await storedOf(log);
        expect(records.map((r) => (r.kind === 'entry' ? r.deliveryId : r.kind))).toEqual(['d-1']);
      } finally {
        await served.close();
        await log.close();
      }
    });

    it('answers 400 (not JSON), 405 (wrong method, Allow: POST), 413 (oversize) and stores none of them', async () => {
      const { log, served } = await start();
      try {
        const sign = (text: string) => ({ 'x-signature': signWebhookBody(bytes(text), 'current') });
        const notJson = await send(served.url, '{"type":', sign('{"type":'));
        expect(notJson.status).toBe(400);
        expect(String(notJson.body.error)).toMatch(/^body is not JSON: /);
        const get = await send(served.url, '', {}, 'GET');
        expect(get.status).toBe(405);
        expect(get.headers.get('allow')).toBe('POST');
        const big = `{"pad":"${'x'.repeat(MAX)}"}`;
        // The handler's own 413 under both (Hono's bodyLimit hands it over as overLimit).
        const tooBig = await send(served.url, big, sign(big));
        expect([tooBig.status, tooBig.body]).toEqual([
          413,
          { error: `body larger than ${MAX} bytes` },
        ]);
        expect(await storedOf(log)).toEqual([]);
      } finally {
        await served.close();
        await log.close();
      }
    });

    it('stores the body as received: 1e400, a big integer, escapes, pretty-printing', async () => {
      const { log, served } = await start();
      try {
        const body =
          '{\r\n  "type": "template-deleted",\n  "companyId": 1e400,\n  "n": 12345678901234567890,\n  "s": "\\u00e9"\n}';
        const answer = await send(served.url, body, {
          'x-signature': signWebhookBody(bytes(body), 'current'),
        });
        expect(answer.status).toBe(200);
        const [record] = await storedOf(log);
        expect(record?.raw.endsWith(`"event":${body.replace(/[\r\n]/g, ' ')}}`)).toBe(true);
      } finally {
        await served.close();
        await log.close();
      }
    });

    it('storage down (the log closed): 503 with Retry-After, nothing stored', async () => {
      const { log, served } = await start();
      try {
        await log.close();
        const answer = await send(served.url, TEMPLATE, {
          'x-signature': signWebhookBody(bytes(TEMPLATE), 'current'),
          'x-delivery-id': 'd-9',
        });
        expect(answer.status).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('5');
        expect(String(answer.body.error)).toMatch(/closed/);
      } finally {
        await served.close();
      }
      if (logName === 'file') {
        const reopened = await LOGS.file?.();
        expect(await storedOf(reopened as LogUnderTest)).toEqual([]);
        await reopened?.close();
      }
    });

    it.each<[string, SignatureOptions]>([
      [
        'sha1 base64 in x-hub-signature',
        { header: 'x-hub-signature', algorithm: 'sha1', encoding: 'base64' },
      ],
      ['sha512 hex', { algorithm: 'sha512' }],
      [
        'DocuSign-like: base64 in X-DocuSign-Signature-1/2, no prefix',
        {
          header: ['x-docusign-signature-1', 'x-docusign-signature-2'],
          encoding: 'base64',
          prefix: '',
        },
      ],
    ])('%s', async (_, signature) => {
      const { log, served } = await start({ signature });
      try {
        const body = bytes(TEMPLATE);
        const name =
          typeof signature.header === 'string'
            ? signature.header
            : (signature.header?.at(-1) ?? 'x-signature');
        const value = signWebhookBody(body, 'previous', signature);
        expect((await send(served.url, body, { [name]: value })).status).toBe(200);
        expect(
          (await send(served.url, body, { [name]: signWebhookBody(body, 'other', signature) }))
            .status,
        ).toBe(401);
      } finally {
        await served.close();
        await log.close();
      }
    });

    it('a signed timestamp: refuses a replayed (old) and a future delivery', async () => {
      const now = new Date('2026-11-23T12:00:00Z');
      const signature: SignatureOptions = {
        timestamp: { header: 'x-timestamp', toleranceSeconds: 300 },
      };
      const { log, served } = await start({ signature, now: () => now });
      try {
        const at = async (offset: number) => {
          const timestamp = String(now.getTime() / 1000 + offset);
          const value = signWebhookBody(bytes(TEMPLATE), 'current', signature, timestamp);
          return send(served.url, TEMPLATE, { 'x-signature': value, 'x-timestamp': timestamp });
        };
        expect((await at(-10)).status).toBe(200);
        const old = await at(-3600);
        expect([old.status, old.body.error]).toEqual([
          401,
          'timestamp is 3600 s old, over the tolerance of 300 s',
        ]);
        expect((await at(600)).status).toBe(401);
        expect(await storedOf(log)).toHaveLength(1);
      } finally {
        await served.close();
        await log.close();
      }
    });
  });
});

describe('node:http: an oversize body is refused without reading it whole', () => {
  const start = async () => {
    const log = createMemoryEventLog();
    const handler = createWebhookHandler({
      log,
      secrets: [],
      insecureNoSignature: true,
      maxBodyBytes: MAX,
    });
    return { log, served: await serveNode(handler, MAX) };
  };

  it('by its Content-Length: 413 and connection close before any byte of the body is needed', async () => {
    const { log, served } = await start();
    try {
      const answer = await sendUnfinished(served.url, [new Uint8Array(100)], 100 * 1024 * 1024);
      expect(answer).toMatchObject({ status: 413, connection: 'close' });
      expect(answer.wrote).toBeLessThan(100 * 1024 * 1024);
      expect(served.outcomes).toEqual([
        {
          kind: 'rejected',
          status: 413,
          reason: `body larger than ${MAX} bytes`,
          deliveryId: undefined,
        },
      ]);
      expect(log.lastPosition).toBe(0);
    } finally {
      await served.close();
    }
  });

  it('streamed without a length: 413 as soon as the cap is passed, while the client still sends', async () => {
    const { log, served } = await start();
    try {
      const chunks = Array.from({ length: 50 }, () => new Uint8Array(1024).fill(0x20));
      const answer = await sendUnfinished(served.url, chunks);
      expect(answer).toMatchObject({ status: 413, connection: 'close' });
      // Answered after little more than the cap, long before the 50 KiB were sent.
      expect(answer.wrote).toBeLessThan(20 * 1024);
      expect(log.lastPosition).toBe(0);
    } finally {
      await served.close();
    }
  });
});

describe('node:http: a body that never reaches the glue whole', () => {
  const listen = async (
    prepare: (request: import('node:http').IncomingMessage) => Promise<void>,
  ) => {
    const log = createMemoryEventLog();
    const handler = createWebhookHandler({ log, secrets: [], insecureNoSignature: true });
    const outcomes: (WebhookOutcome | undefined)[] = [];
    const server = createServer((request, response) => {
      void prepare(request)
        .then(() => handleNodeRequest(handler, request, response, { maxBodyBytes: MAX }))
        .then((outcome) => outcomes.push(outcome));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const close = () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    return { log, outcomes, url: `http://127.0.0.1:${port}/webhooks`, close };
  };

  it('read by a parser that ran first: 503 with Retry-After (a setup error, retried once fixed), never a hang', async () => {
    const served = await listen(
      (request) =>
        new Promise((resolve) => {
          request.resume();
          request.on('end', () => resolve());
        }),
    );
    try {
      const answer = await send(served.url, TEMPLATE);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(String(answer.body.error)).toMatch(/body parser ran first/);
      expect(served.log.lastPosition).toBe(0);
    } finally {
      await served.close();
    }
  });

  it('a client that goes away mid-body: nothing answered, nothing stored, the glue resolves', async () => {
    const served = await listen(async () => undefined);
    try {
      await new Promise<void>((resolve) => {
        const req = httpRequest(served.url, {
          method: 'POST',
          headers: { 'content-length': '1000' },
        });
        req.on('error', () => undefined);
        req.write('{"type":', () => {
          setTimeout(() => {
            req.destroy();
            resolve();
          }, 20);
        });
      });
      await expect.poll(() => served.outcomes.length, { timeout: 30_000 }).toBe(1);
      expect(served.outcomes).toEqual([undefined]);
      expect(served.log.lastPosition).toBe(0);
    } finally {
      await served.close();
    }
  });
});
