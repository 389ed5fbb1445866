import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequestId } from '../../../src/core/ids.js';
import type { Projector } from '../../../src/index.js';
import { signWebhookBody } from '../../../src/webhooks/index.js';
import {
  participantEvent,
  ROOT,
  removeTempDirs,
  requestEvent,
  runCli,
  tempDir,
} from '../cli-helpers.js';

/** What `examples/webhook-server.js` exports (it is plain JS, so typed here). */
interface WebhookExample {
  readonly DELIVERY_HEADER: string;
  startServer(options: {
    logPath: string;
    port?: number;
    host?: string;
    maxBodyBytes?: number;
    secrets?: string[];
    insecureNoSignature?: boolean;
  }): Promise<{
    url: string;
    port: number;
    projector: Projector;
    close(): Promise<void>;
  }>;
}

const SCRIPT = join(ROOT, 'examples/webhook-server.js');
// A computed specifier: the example is run as is, not type-checked as part of the tests.
const example = (await import(pathToFileURL(SCRIPT).href)) as WebhookExample;

afterAll(removeTempDirs);

/** The first delivery, sent twice with the same delivery id. */
const SENT = JSON.stringify(requestEvent('sign-request-sent', 1000, true));

let logPath: string;
beforeAll(async () => {
  logPath = join(await tempDir(), 'events.ndjson');
});

/** The secret of the servers these tests start. */
const SECRET = 'example secret';

/** POSTs `body` signed with {@link SECRET} (or with `secret`; `null`: unsigned). */
const post = async (
  url: string,
  body: string,
  deliveryId?: string,
  secret: string | null = SECRET,
) => {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (deliveryId !== undefined) headers[example.DELIVERY_HEADER] = deliveryId;
  if (secret !== null)
    headers['x-signature'] = signWebhookBody(new TextEncoder().encode(body), secret);
  const response = await fetch(url, { method: 'POST', body, headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

const logLines = async (): Promise<Record<string, unknown>[]> =>
  (await readFile(logPath, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('examples/webhook-server.js', () => {
  it('stores each delivery once, refuses non-JSON, and applies events live', async () => {
    const server = await example.startServer({
      logPath,
      port: 0,
      maxBodyBytes: 4096,
      secrets: [SECRET],
    });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
      expect(await post(server.url, SENT, 'd-1')).toEqual({
        status: 200,
        body: { position: 1, duplicate: false, outcome: 'applied' },
      });
      // Unsigned, or signed with another secret: 401, nothing stored.
      for (const secret of [null, 'guess']) {
        const refused = await post(server.url, SENT, 'd-0', secret);
        expect(refused.status).toBe(401);
      }
      // Redelivered with the same id: acknowledged, stored once.
      expect(await post(server.url, SENT, 'd-1')).toEqual({
        status: 200,
        body: { position: 1, duplicate: true },
      });
      const notJson = await post(server.url, '{"type":"participant-sent",', 'd-2');
      expect(notJson.status).toBe(400);
      expect(notJson.body.error).toMatch(/^body is not JSON/);
      // JSON but not a valid event: stored, and quarantined by the projector.
      expect(await post(server.url, '{"type":"sign-request-snet"}', 'd-3')).toEqual({
        status: 200,
        body: { position: 2, duplicate: false, outcome: 'quarantined' },
      });
      const tooLarge = await post(server.url, JSON.stringify({ pad: 'x'.repeat(5000) }), 'd-4');
      expect(tooLarge.status).toBe(413);
      expect((await fetch(server.url)).status).toBe(405);
      expect(
        (await fetch(server.url.replace('/webhooks', '/other'), { method: 'POST' })).status,
      ).toBe(404);

      // Concurrent deliveries: distinct positions, every one applied in position order.
      const viewed = JSON.stringify(participantEvent('participant-viewed', 1000, 5, false));
      const sentTo5 = JSON.stringify(participantEvent('participant-sent', 1000, 5, true));
      expect((await post(server.url, sentTo5, 'd-5')).body.position).toBe(3);
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => post(server.url, viewed, `v-${i}`)),
      );
      expect(replies.map((r) => r.body.position).sort((a, b) => Number(a) - Number(b))).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 4),
      );
      expect(replies.every((r) => r.status === 200 && r.body.outcome === 'applied')).toBe(true);
      const participant = server.projector
        .state()
        .participants.get(signRequestId(1000))
        ?.values()
        .next().value;
      expect(participant).toMatchObject({ status: 'viewed', viewCount: 20 });
      expect(server.projector.checkpoint).toBe(23);
    } finally {
      await server.close();
    }

    const lines = await logLines();
    expect(lines).toHaveLength(23);
    expect(lines.map((l) => l.position)).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
    expect(lines[0]).toMatchObject({ position: 1, deliveryId: 'd-1', event: JSON.parse(SENT) });
    expect(lines[1]).toMatchObject({ deliveryId: 'd-3', event: { type: 'sign-request-snet' } });
    expect(lines.filter((l) => l.deliveryId === 'd-1')).toHaveLength(1);
    expect(lines.some((l) => ['d-0', 'd-2', 'd-4'].includes(String(l.deliveryId)))).toBe(false);
  });

  it('refuses what the file reader calls a bad line: a byte order mark, whitespace JSON does not allow', async () => {
    const path = join(await tempDir(), 'bom.ndjson');
    const server = await example.startServer({ logPath: path, port: 0, secrets: [SECRET] });
    try {
      // Each is a bad line in a log file (a BOM only passes at the start of the file).
      for (const [i, body] of [
        `\uFEFF${SENT}`,
        '\u00A0',
        '\f',
        '\v',
        '\u2028',
        '\u3000',
      ].entries()) {
        const refused = await post(server.url, body, `bad-${i}`);
        expect(refused.status).toBe(400);
        expect(refused.body.error).toMatch(/^body is not JSON/);
      }
      expect(await post(server.url, SENT, 'good')).toMatchObject({
        status: 200,
        body: { position: 1 },
      });
    } finally {
      await server.close();
    }
    expect((await readFile(path, 'utf8')).split('\n')).toHaveLength(2);
  });

  it('catches up from the log on restart, and the CLI reads the same log', async () => {
    const server = await example.startServer({ logPath, port: 0, secrets: [SECRET] });
    try {
      expect(server.projector.checkpoint).toBe(23);
      expect(server.projector.quarantine().map((q) => q.position)).toEqual([2]);
      // A redelivery after the restart is still recognised.
      expect((await post(server.url, SENT, 'd-1')).body).toEqual({ position: 1, duplicate: true });
    } finally {
      await server.close();
    }
    const check = await runCli(['check', logPath]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`${logPath}:2: position 2: invalid event: type: `);
  });

  it('is shown verbatim in docs/webhooks.md', async () => {
    const doc = await readFile(join(ROOT, 'docs/webhooks.md'), 'utf8');
    const code = await readFile(SCRIPT, 'utf8');
    expect(doc).toContain(`\n\`\`\`js\n${code}\`\`\`\n`);
  });
});

describe('examples/webhook-server.js without a secret', () => {
  it('exits 2 with one line as a program, unless --insecure-no-signature; startServer rejects', async () => {
    const env = { ...process.env, PORT: '0', SIGNFOLD_WEBHOOK_SECRET: '' };
    const refused = spawnSync(process.execPath, [SCRIPT, join(await tempDir(), 'e.ndjson')], {
      env,
      encoding: 'utf8',
      timeout: 60_000, // a hang guard: a busy machine may take seconds to start it
    });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(
      'webhook-server: set SIGNFOLD_WEBHOOK_SECRET, or pass --insecure-no-signature\n',
    );
    await expect(
      example.startServer({ logPath: join(await tempDir(), 'e.ndjson'), port: 0, secrets: [] }),
    ).rejects.toThrow(/no secret/);
    const open = await example.startServer({
      logPath: join(await tempDir(), 'e.ndjson'),
      port: 0,
      secrets: [],
      insecureNoSignature: true,
    });
    try {
      expect((await post(open.url, SENT, 'u-1', null)).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

describe('examples/webhook-server.js run twice on one log', () => {
  it('exits the second server at start with one line naming the holder, before listening', async () => {
    const dir = await tempDir();
    const shared = join(dir, 'shared.ndjson');
    const first = spawn(process.execPath, [SCRIPT, shared], {
      env: { ...process.env, PORT: '0', SIGNFOLD_WEBHOOK_SECRET: SECRET },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      let banner = '';
      first.stderr.setEncoding('utf8');
      await new Promise<void>((resolve, reject) => {
        first.stderr.on('data', (text: string) => {
          banner += text;
          if (banner.includes('listening on')) resolve();
        });
        first.on('exit', () => reject(new Error(`first server exited: ${banner}`)));
      });
      const second = spawnSync(process.execPath, [SCRIPT, shared], {
        env: { ...process.env, PORT: '0', SIGNFOLD_WEBHOOK_SECRET: SECRET },
        encoding: 'utf8',
        timeout: 60_000, // a hang guard: a busy machine may take seconds to start it
      });
      expect(second.status).toBe(1);
      expect(second.stderr.split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^webhook-server: event log .*shared\\.ndjson is locked by pid ${first.pid} on `,
          ),
        ),
        '',
      ]);
      expect(second.stderr).not.toContain('listening');
    } finally {
      first.kill('SIGTERM');
      await new Promise((resolve) => first.on('close', resolve));
    }
  });
});
