/**
 * `signfold emulate` end to end, as a team would run it: into a receiver no part of signfold
 * wrote (plain node:http with the `standardwebhooks` package), into `signfold serve` through a
 * faulty channel followed by `signfold reconcile` over the emulator's read API, and its record,
 * the same bytes for the same seed. Small stories: each test takes a few seconds.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EVENT_MEMBERS, type EventType } from '../../src/core/events/event-members.js';
import { apiDifferences, type ReplayJson, startStandardReceiver } from '../emulator/receivers.js';
import { eventually } from '../support/eventually.js';
import { SIMULATOR_FETCH_MODULE } from '../support/simulator-fetch.js';
import { ROOT, type Running, removeTempDirs, runCli, startCli, tempDir } from './cli-helpers.js';
import { killLeftoverServes, SECRET, startServe } from './serve/serve-process.js';

const WHSEC = `whsec_${Buffer.from('emulator-test-secret-0123456789').toString('base64')}`;
const started: Running[] = [];
afterEach(async () => {
  await killLeftoverServes();
  for (const running of started.splice(0)) {
    if (running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGKILL');
    }
    await running.closed.catch(() => undefined);
  }
});
afterAll(removeTempDirs);

const emulate = (args: readonly string[], env: NodeJS.ProcessEnv): Running => {
  const running = startCli(['emulate', ...args], { ...process.env, ...env });
  started.push(running);
  return running;
};

const apiUrlOf = (running: Running): string | undefined =>
  /read API on (http:\/\/127\.0\.0\.1:\d+)/.exec(running.stdout())?.[1];

const replayJson = async (bodies: readonly string[]): Promise<ReplayJson> => {
  const path = join(await tempDir(), 'arrived.ndjson');
  await writeFile(path, bodies.map((body) => `${body}\n`).join(''));
  const run = await runCli(['replay', path, '--json']);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as ReplayJson;
};

describe('signfold emulate', () => {
  it('into a standardwebhooks receiver: every delivery verifies, in order, with exactly the §6.2 members; replay agrees with the read API', async () => {
    const receiver = await startStandardReceiver(WHSEC);
    try {
      const running = emulate(
        [
          '--to',
          receiver.url,
          '--secret-env',
          'EMU_SECRET',
          '--scheme',
          'standard-webhooks',
          '--seed',
          '5',
          '--requests',
          '12',
          '--api-port',
          '0',
        ],
        { EMU_SECRET: WHSEC },
      );
      await eventually(() => running.stderr().includes('emulate: sent'), 'the summary');
      const api = apiUrlOf(running);
      expect(api).toBeDefined();
      expect(receiver.refused).toEqual([]);
      const summary =
        /emulate: sent (\d+), acknowledged (\d+), retried 0, lost 0, duplicated 0, reordered 0, given up 0/.exec(
          running.stderr(),
        );
      expect(summary?.[1]).toBe(String(receiver.verified.length));
      expect(summary?.[2]).toBe(String(receiver.verified.length));
      // In the order emitted: delivery ids emu-5-0, emu-5-1, …
      expect(receiver.verified.map((d) => d.id)).toEqual(
        receiver.verified.map((_, index) => `emu-5-${index}`),
      );
      for (const { body } of receiver.verified) {
        const wire = JSON.parse(body) as { type: EventType } & Record<string, unknown>;
        const members = EVENT_MEMBERS[wire.type].map((m) =>
          m === 'participantName' ? 'partcipantName' : m,
        );
        expect(Object.keys(wire)).toEqual(['type', ...members]);
      }
      const replayed = await replayJson(receiver.verified.map((d) => d.body));
      expect(replayed.stats).toMatchObject({ conflicts: 0, invalid: 0 });
      const answers = (await (await fetch(`${api}/sign-requests`)).json()) as Record<
        string,
        unknown
      >[];
      expect(answers.length).toBeGreaterThan(5);
      expect(apiDifferences(replayed, answers)).toEqual([]);
      // Deleted requests: 404 at the API, deleted in the replay.
      for (const request of replayed.signRequests.filter((r) => r.deleted)) {
        expect((await fetch(`${api}/sign-requests/${request.id}`)).status).toBe(404);
      }
      // With --api-port it keeps serving until a signal, then exits 0.
      expect(running.child.exitCode).toBeNull();
      running.child.kill('SIGTERM');
      expect((await running.closed).code).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('10 % loss and 20 % reordering into signfold serve, then reconcile over the read API: every status equals the API’s', async () => {
    const path = join(await tempDir(), 'events.ndjson');
    const serve = await startServe(['--log', path]);
    let api: string | undefined;
    let running: Running;
    try {
      running = emulate(
        [
          '--to',
          `${serve.url}/webhooks`,
          '--secret-env',
          'EMU_SECRET',
          '--seed',
          '11',
          '--requests',
          '16',
          '--loss',
          '0.1',
          '--reorder',
          '0.2',
          '--duplicate',
          '0.05',
          '--api-port',
          '0',
        ],
        { EMU_SECRET: SECRET },
      );
      await eventually(() => running.stderr().includes('emulate: sent'), 'the summary');
      api = apiUrlOf(running);
      expect(running.stderr()).toMatch(
        /lost [1-9]\d*, duplicated \d+, reordered [1-9]\d*, given up 0/,
      );
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
    expect(api).toBeDefined();
    const answers = (await (await fetch(`${api}/sign-requests`)).json()) as Record<
      string,
      unknown
    >[];
    const ids = answers.flatMap((answer) => ['--sign-request', String(answer.id)]);
    const before = JSON.parse((await runCli(['replay', path, '--json'])).stdout) as ReplayJson;
    expect(apiDifferences(before, answers).length).toBeGreaterThan(0);
    const env = { ...process.env, SIGNFOLD_SIMULATOR_URL: api };
    const reconcile = await runCli(
      ['reconcile', path, '--fetch', SIMULATOR_FETCH_MODULE, '--rate', '200', ...ids],
      ROOT,
      env,
    );
    expect(reconcile.stderr).toBe('');
    expect(reconcile.code).toBe(0);
    const after = JSON.parse((await runCli(['replay', path, '--json'])).stdout) as ReplayJson;
    // A request whose every event was lost is one signfold cannot know (and reconcile asks
    // about the ids it is given): none in this seed.
    expect(apiDifferences(after, answers)).toEqual([]);
    running.child.kill('SIGINT');
    expect((await running.closed).code).toBe(0);
  });

  it('signs with a whsk_ Ed25519 key that signfold serve verifies with its whpk_ public key, which it prints', async () => {
    const seed = Buffer.alloc(32, 7);
    const whsk = `whsk_${seed.toString('base64')}`;
    // The public key of the seed, computed apart from signfold's own signing.
    const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
    const jwk = createPublicKey(
      createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }),
    ).export({
      format: 'jwk',
    });
    const whpk = `whpk_${Buffer.from(String(jwk.x), 'base64url').toString('base64')}`;
    const path = join(await tempDir(), 'events.ndjson');
    const serve = await startServe(['--log', path, '--scheme', 'standard-webhooks'], {
      ...process.env,
      SIGNFOLD_WEBHOOK_SECRET: whpk,
    });
    try {
      const running = emulate(
        [
          '--to',
          `${serve.url}/webhooks`,
          '--secret-env',
          'K',
          '--scheme',
          'standard-webhooks',
          '--requests',
          '3',
          '--retries',
          '1',
        ],
        { K: whsk },
      );
      const done = await running.closed;
      expect(done.code).toBe(0);
      expect(done.stderr).toContain(`public key ${whpk}`);
      expect(done.stderr).not.toContain(whsk);
      expect(done.stderr).toMatch(
        /acknowledged (\d+), retried 0, lost 0, duplicated 0, reordered 0, given up 0/,
      );
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
  });

  it('writes the same record for the same seed, whatever the faults, and another for another seed', async () => {
    const dir = await tempDir();
    const write = async (name: string, extra: readonly string[]) => {
      const file = join(dir, name);
      const run = await runCli(['emulate', '--record', file, '--requests', '15', ...extra]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('');
      return readFile(file);
    };
    const a = await write('a.ndjson', ['--seed', '9']);
    const b = await write('b.ndjson', ['--seed', '9', '--loss', '0.5', '--reorder', '0.3']);
    const c = await write('c.ndjson', ['--seed', '10']);
    expect(a.length).toBeGreaterThan(0);
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
    const lines = a.toString('utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      deliveryId: 'emu-9-0',
      event: { type: 'template-activated' },
    });
  });

  it('refuses what it cannot do, naming the flag, and never a secret', async () => {
    const cases: [readonly string[], RegExp][] = [
      [[], /nothing to do/],
      [['--to', 'http://127.0.0.1:1/'], /--to needs --secret-env NAME/],
      [['--record', 'x', '--loss', '2'], /--loss must be a number from 0 to 1/],
      [
        ['--record', 'x', '--signing', 'random'],
        /--signing must be one of parallel, sequential, mixed/,
      ],
      [['--to', 'ftp://x', '--secret-env', 'X'], /--to must be an http/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(['emulate', ...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
    }
    const wrong = emulate(
      ['--to', 'http://127.0.0.1:1/', '--secret-env', 'K', '--scheme', 'standard-webhooks'],
      { K: 'plain-secret-value' },
    );
    const done = await wrong.closed;
    expect(done.code).toBe(2);
    expect(done.stderr).toMatch(/K is not a Standard Webhooks signing secret/);
    expect(done.stderr).not.toContain('plain-secret-value');
  });
});
