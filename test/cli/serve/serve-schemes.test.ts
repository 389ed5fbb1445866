/**
 * `signfold serve` with the signature flags, as a real process: `--scheme standard-webhooks` with
 * standardwebhooks as the sender and secrets bound to companies (`--secret-env NAME:COMPANY,...`:
 * 403, not stored, counted as forbidden), a captured delivery replayed under a new id; the hmac
 * flags (`--signature-encoding`, `--signature-prefix`, `--timestamp-header`,
 * `--timestamp-tolerance`, `--require-delivery-id`); and the delivery id on the log line of every
 * answer whose request carried one (401 and 413 included).
 */
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileEventLog } from '../../../src/store/file-record-stream.js';
import { removeTempDirs, runCli, tempDir } from '../cli-helpers.js';
import { eventually, metricValue, startServe } from './serve-process.js';

afterAll(removeTempDirs);

const ACME = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
const PLATFORM = `whsec_${Buffer.alloc(24, 2).toString('base64')}`;
const event = (companyId: number, templateId: number) =>
  JSON.stringify({
    type: 'template-activated',
    companyId,
    templateId,
    templateName: 'NDA',
    ownerId: 10,
    ownerName: 'Olive',
  });

/** Delivers `body` as standardwebhooks signs it with `secret`. */
const send = (url: string, secret: string, id: string, body: string, at = new Date()) =>
  fetch(`${url}/webhooks`, {
    method: 'POST',
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, body),
    },
    body,
  });

const storedIds = async (path: string): Promise<(string | undefined)[]> => {
  const ids: (string | undefined)[] = [];
  for await (const batch of readFileEventLog(path))
    for (const r of batch) ids.push(r.kind === 'entry' ? r.deliveryId : r.kind);
  return ids;
};

describe('serve --scheme standard-webhooks with secrets bound to companies', () => {
  it('stores what a secret may deliver, answers 403 for another company, 401 for a replay under a new id', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const env = { ...process.env, ACME_SECRET: ACME, PLATFORM_SECRET: PLATFORM };
    const args = ['--log', log, '--scheme', 'standard-webhooks'];
    const serve = await startServe(
      [...args, '--secret-env', 'ACME_SECRET:1,4', '--secret-env', 'PLATFORM_SECRET'],
      env,
    );
    try {
      expect((await send(serve.url, ACME, 'msg_1', event(1, 1))).status).toBe(200);
      const other = await send(serve.url, ACME, 'msg_2', event(2, 2));
      expect(other.status).toBe(403);
      expect(await other.json()).toEqual({ error: 'secret not allowed for company 2' });
      expect((await send(serve.url, PLATFORM, 'msg_3', event(2, 3))).status).toBe(200);
      // A captured delivery sent again under another id: the id is signed.
      const body = event(1, 1);
      const at = new Date();
      const replay = await fetch(`${serve.url}/webhooks`, {
        method: 'POST',
        headers: {
          'webhook-id': 'msg_new',
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(ACME).sign('msg_1', at, body),
        },
        body,
      });
      expect(replay.status).toBe(401);
      const again = await send(serve.url, ACME, 'msg_1', body);
      expect(await again.json()).toEqual({ position: 1, duplicate: true });
      // Counted before the answer was sent.
      const forbidden = 'signfold_webhook_deliveries_total{outcome="forbidden",status="403"}';
      expect(await metricValue(serve.url, forbidden)).toBe(1);
      // A request's line is written once its answer is: wait for the last one. Only the
      // deliveries': the /metrics read above has a line of its own, written at its own pace.
      const requests = () =>
        serve.logLines().filter((line) => line.event === 'request' && line.path === '/webhooks');
      await eventually(() => requests().length === 5, 'the five request lines');
      const lines = requests();
      expect(lines.map((line) => [line.status, line.deliveryId])).toEqual([
        [200, 'msg_1'],
        [403, 'msg_2'],
        [200, 'msg_3'],
        [401, 'msg_new'],
        [200, 'msg_1'],
      ]);
      expect(lines[1]?.outcome).toBe('forbidden');
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
    expect(await storedIds(log)).toEqual(['msg_1', 'msg_3']);
  });

  it('refuses a secret without whsec_ at start, naming the variable and the form, not the value', async () => {
    const dir = await tempDir();
    const env = { ...process.env, SIGNFOLD_WEBHOOK_SECRET: 'plain-text-secret' };
    const run = await runCli(
      ['serve', '--log', join(dir, 'e.ndjson'), '--scheme', 'standard-webhooks'],
      undefined,
      env,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^signfold: SIGNFOLD_WEBHOOK_SECRET is not a Standard Webhooks secret: expected whsec_ followed by the base64 of the key bytes/,
    );
    expect(run.stderr).not.toContain('plain-text-secret');
  });
});

describe('serve with the hmac flags', () => {
  it('--signature-encoding base64 --signature-prefix v0= --timestamp-header --timestamp-tolerance --require-delivery-id', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const secret = 'hmac-flags-secret';
    const serve = await startServe(
      [
        '--log',
        log,
        '--max-body',
        '4096',
        '--signature-encoding',
        'base64',
        '--signature-prefix',
        'v0=',
        '--timestamp-header',
        'x-ts',
        '--timestamp-tolerance',
        '60',
        '--require-delivery-id',
      ],
      { ...process.env, SIGNFOLD_WEBHOOK_SECRET: secret },
    );
    const post = (body: string, headers: Record<string, string>, ts: number) =>
      fetch(`${serve.url}/webhooks`, {
        method: 'POST',
        headers: {
          'x-ts': String(ts),
          'x-signature': `v0=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('base64')}`,
          ...headers,
        },
        body,
      });
    const now = Math.floor(Date.now() / 1000);
    try {
      expect((await post(event(1, 1), { 'x-delivery-id': 'h-1' }, now)).status).toBe(200);
      expect((await post(event(1, 2), {}, now)).status).toBe(400);
      const stale = await post(event(1, 3), { 'x-delivery-id': 'h-3' }, now - 120);
      expect(stale.status).toBe(401);
      expect(((await stale.json()) as { error: string }).error).toMatch(
        /over the tolerance of 60 s/,
      );
      const big = await post('x'.repeat(5000), { 'x-delivery-id': 'h-4' }, now);
      expect(big.status).toBe(413);
      const requests = () => serve.logLines().filter((line) => line.event === 'request');
      await eventually(() => requests().length === 4, 'the four request lines');
      expect(requests().map((line) => [line.status, line.deliveryId])).toEqual([
        [200, 'h-1'],
        [400, null],
        [401, 'h-3'],
        [413, 'h-4'],
      ]);
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
    expect(await storedIds(log)).toEqual(['h-1']);
  });
});
