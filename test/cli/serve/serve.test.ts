/**
 * `signfold serve` as a real process on 127.0.0.1: its command line (every
 * mistake one line, exit 2, before anything is opened), its secrets, its
 * routes, the counting of /metrics before the answer, and its log lines.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, removeTempDirs, runCli, runCliHere, tempDir } from '../cli-helpers.js';
import {
  deliver,
  eventBody,
  eventually,
  metricValue,
  SECRET,
  type ServeProcess,
  secretEnv,
  signatureOf,
  startServe,
} from './serve-process.js';

afterAll(removeTempDirs);

const CLI_DOC = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');

/** Exit 2 with one `signfold: ` line on stderr and nothing on stdout; returns that line. */
const oneLine = (run: { code: number | null; stdout: string; stderr: string }): string => {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  const lines = run.stderr.split('\n').filter((line) => line !== '');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^signfold: /);
  return lines[0] ?? '';
};

/** Runs serve with `args` as a process of its own, expecting exit 2 and one line on stderr. */
const refused = async (args: readonly string[], env = secretEnv()): Promise<string> =>
  oneLine(await runCli(['serve', ...args], undefined, env));

/**
 * The same in this process, with the webhook secret set: serve refuses its command line before
 * it listens, reads the log or touches the process's signals, so a refusal needs no process of
 * its own (about 0.25 s of CPU each). A command line serve accepted would start serving here:
 * the deadline fails the test instead of waiting for the file's timeout.
 */
const refusedHere = async (args: readonly string[]): Promise<string> => {
  const saved = process.env.SIGNFOLD_WEBHOOK_SECRET;
  process.env.SIGNFOLD_WEBHOOK_SECRET = SECRET;
  let deadline: NodeJS.Timeout | undefined;
  try {
    const run = await Promise.race([
      runCliHere(['serve', ...args]),
      new Promise<never>((_, reject) => {
        deadline = setTimeout(
          () => reject(new Error(`serve ${args.join(' ')} did not refuse within 10 s`)),
          10_000,
        );
      }),
    ]);
    return oneLine(run);
  } finally {
    clearTimeout(deadline);
    if (saved === undefined) delete process.env.SIGNFOLD_WEBHOOK_SECRET;
    else process.env.SIGNFOLD_WEBHOOK_SECRET = saved;
  }
};

describe('serve: the command line', () => {
  it('refuses every malformed argument with one line, exit 2, and creates no log', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const cases: [readonly string[], RegExp][] = [
      [[], /missing --log FILE or --database URL/],
      [['--log', log, '--database', 'postgres://x@127.0.0.1/db'], /not both/],
      [['--log', log, '--port', '70000'], /--port must be 0 to 65535/],
      [['--log', log, '--port', 'abc'], /--port must be a non-negative integer/],
      [['--log', log, '--port', '-1'], /--port must be a non-negative integer/],
      [['--log', log, '--max-body', '0'], /--max-body must be 1 to 262144/],
      [['--log', log, '--max-body', '262145'], /--max-body must be 1 to 262144/],
      [['--log', log, '--max-body', '1e3'], /--max-body must be a non-negative integer/],
      [['--log', log, '--append-timeout', '0'], /--append-timeout must be 1 to 60 \(seconds/],
      [['--log', log, '--append-timeout', '61'], /--append-timeout must be 1 to 60 \(seconds/],
      [
        ['--log', log, '--append-timeout', '2.5'],
        /--append-timeout must be a non-negative integer/,
      ],
      [['--log', log, '--signature-header', 'x sig'], /--signature-header must be an HTTP header/],
      [['--log', log, '--delivery-header', ''], /--delivery-header must be an HTTP header/],
      [['--log', log, '--secret-env', ''], /--secret-env must name an environment variable/],
      [['--log', log, '--secret-env', ':1'], /--secret-env must name an environment variable/],
      [['--log', log, '--secret-env', 'S:'], /the companies after ':' must be company ids/],
      [['--log', log, '--secret-env', 'S:1,x'], /the companies after ':' must be company ids/],
      [['--log', log, '--scheme', 'svix'], /--scheme must be one of hmac, standard-webhooks/],
      [
        ['--log', log, '--signature-encoding', 'b32'],
        /--signature-encoding must be one of hex, base64/,
      ],
      [
        ['--log', log, '--timestamp-tolerance', '60'],
        /--timestamp-tolerance needs --timestamp-header/,
      ],
      [
        ['--log', log, '--timestamp-header', 'x-ts', '--timestamp-tolerance', '0'],
        /--timestamp-tolerance must be 1 to 86400/,
      ],
      [['--log', log, '--timestamp-header', 'x ts'], /--timestamp-header must be an HTTP header/],
      [
        ['--log', log, '--scheme', 'standard-webhooks', '--signature-header', 'x-sig'],
        /--signature-header does not apply to --scheme standard-webhooks/,
      ],
      [
        ['--log', log, '--scheme', 'standard-webhooks', '--delivery-header', 'x-id'],
        /--delivery-header does not apply to --scheme standard-webhooks: its delivery id is the signed webhook-id/,
      ],
      [['--log', log, '--schema', 'x'], /--schema needs --database URL/],
      [['--log', log, 'extra'], /unexpected argument 'extra'/],
      [['--log', log, '--frob'], /unknown option '--frob'/],
      [['--database', 'mysql://x@h/db'], /--database must be a postgres:\/\/ URL/],
    ];
    const lines: string[] = [];
    for (const [args] of cases) lines.push(await refusedHere(args));
    for (const [index, [args, expected]] of cases.entries()) {
      expect(lines[index], args.join(' ')).toMatch(expected);
      expect(lines[index]).toContain("(see 'signfold serve --help')");
    }
    expect(existsSync(log)).toBe(false);
  });

  it('--reactors: a module that does not load is one line (exit 2), before the log is created', async () => {
    const dir = await tempDir();
    const log = join(dir, 'e.ndjson');
    const line = await refused(['--log', log, '--reactors', join(dir, 'reactors.js')]);
    expect(line).toMatch(/^signfold: serve: cannot load .*reactors\.js: /);
    expect(existsSync(log)).toBe(false);
    const help = await runCli(['serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--reactors MODULE');
  });

  it('without a secret (unset, or every variable empty) exits 2 unless --insecure-no-signature', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const env = { ...process.env };
    delete env.SIGNFOLD_WEBHOOK_SECRET;
    expect(await refused(['--log', log], env)).toMatch(
      /^signfold: no webhook secret: set SIGNFOLD_WEBHOOK_SECRET .*--insecure-no-signature/,
    );
    expect(await refused(['--log', log], { ...env, SIGNFOLD_WEBHOOK_SECRET: '' })).toMatch(
      /no webhook secret/,
    );
    const both = ['--log', log, '--secret-env', 'HOOK_A', '--secret-env', 'HOOK_B'];
    expect(await refused(both, { ...env, HOOK_A: '', HOOK_B: '' })).toMatch(
      /no webhook secret: set any of HOOK_A, HOOK_B/,
    );
    // A secret together with the flag that verifies nothing: the user must choose.
    expect(await refused(['--log', log, '--insecure-no-signature'], secretEnv())).toMatch(
      /--insecure-no-signature verifies nothing, yet SIGNFOLD_WEBHOOK_SECRET holds a secret/,
    );
    // Nothing of a refused start is left behind, and no secret value is ever printed.
    expect(existsSync(log)).toBe(false);
  });

  it('--insecure-no-signature stores unsigned deliveries and warns once, as a JSON line', async () => {
    const dir = await tempDir();
    const env = { ...process.env, SIGNFOLD_WEBHOOK_SECRET: undefined };
    const serve = await startServe(
      ['--log', join(dir, 'events.ndjson'), '--insecure-no-signature'],
      env,
    );
    try {
      const answer = await deliver(serve.url, eventBody(1), {}, null);
      expect(answer.status).toBe(200);
      const warnings = serve.logLines().filter((line) => line.event === 'warning');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toMatch(/--insecure-no-signature: deliveries are not verified/);
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
  });
});

describe('serve: routes, metrics and log lines on a file log', () => {
  let serve: ServeProcess;
  let logPath: string;

  beforeAll(async () => {
    logPath = join(await tempDir(), 'events.ndjson');
    // Two secrets at once (rotation); the default variable is not used when --secret-env is given.
    serve = await startServe(
      [
        '--log',
        logPath,
        '--secret-env',
        'OLD_SECRET',
        '--secret-env',
        'NEW_SECRET',
        '--max-body',
        '1000',
      ],
      secretEnv({ OLD_SECRET: 'old-one', NEW_SECRET: SECRET }),
    );
  });

  afterAll(async () => {
    const exit = await serve.stop();
    expect(exit.code).toBe(0);
    // The listening line is all there is on stdout.
    expect(exit.stdout).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+ \(file log .*\)\n$/);
  });

  it('answers /healthz, /readyz and /metrics, 404 elsewhere, 405 on a wrong method, ignoring the query', async () => {
    const status = async (path: string, method = 'GET') =>
      (await fetch(`${serve.url}${path}`, { method })).status;
    expect(await status('/healthz')).toBe(200);
    expect(await status('/healthz?probe=1')).toBe(200);
    expect(await status('/readyz')).toBe(200);
    expect(await status('/metrics')).toBe(200);
    expect(await status('/')).toBe(404);
    expect(await status('/webhooks/')).toBe(404);
    expect(await status('/WEBHOOKS', 'POST')).toBe(404);
    expect(await status('//x/webhooks', 'POST')).toBe(404);
    expect(await status('/healthz', 'POST')).toBe(405);
    const wrong = await fetch(`${serve.url}/webhooks?x=1`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    const metrics = await fetch(`${serve.url}/metrics`);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    expect(text).toMatch(/^# TYPE signfold_webhook_append_seconds histogram$/m);
    // docs/cli.md's table of metrics names exactly the signfold_ metrics served.
    const served = [...text.matchAll(/^# TYPE (signfold_\w+) (\w+)$/gm)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    // The projection and reactor metrics have a table of their own, after this one.
    const section = CLI_DOC.slice(
      CLI_DOC.indexOf('### Metrics'),
      CLI_DOC.indexOf('### Projection and reactor metrics'),
    );
    // The effect gauges are served with --reactors only (test/cli/serve/reactors.test.ts).
    const documented = [
      ...section.matchAll(/^\| `(signfold_\w+)(?:\{[^}]*\})?`\s*\| (\w+)\s*\| (.*)$/gm),
    ]
      .filter((m) => !(m[3] ?? '').startsWith('with `--reactors`'))
      .map((m) => `${m[1]} ${m[2]}`);
    expect(documented.sort()).toEqual(served.sort());
    expect(served).toHaveLength(4);
  });

  it('counts each delivery in /metrics before answering it', async () => {
    const sample = (outcome: string, status: number) =>
      `signfold_webhook_deliveries_total{outcome="${outcome}",status="${status}"}`;
    const count = async (outcome: string, status: number) =>
      (await metricValue(serve.url, sample(outcome, status))) ?? Number.NaN;
    const before = {
      stored: await count('stored', 200),
      duplicate: await count('duplicate', 200),
      unsigned: await count('rejected', 401),
      notJson: await count('rejected', 400),
      appends: (await metricValue(serve.url, 'signfold_webhook_append_seconds_count')) ?? 0,
    };
    // Signed with the second secret of the rotation.
    const stored = await deliver(serve.url, eventBody(7), { 'x-delivery-id': 'count-1' });
    expect(stored.status).toBe(200);
    expect(await count('stored', 200)).toBe(before.stored + 1);
    const again = await deliver(serve.url, eventBody(7), { 'x-delivery-id': 'count-1' });
    expect(await again.json()).toMatchObject({ duplicate: true });
    expect(await count('duplicate', 200)).toBe(before.duplicate + 1);
    expect(await metricValue(serve.url, 'signfold_webhook_append_seconds_count')).toBe(
      before.appends + 2,
    );
    const old = await deliver(serve.url, eventBody(8), {}, 'old-one');
    expect(old.status).toBe(200);
    const forged = await deliver(serve.url, eventBody(9), {}, 'not-the-secret');
    expect(forged.status).toBe(401);
    expect(await count('rejected', 401)).toBe(before.unsigned + 1);
    const body = '{"type": oops';
    const notJson = await deliver(serve.url, body);
    expect(notJson.status).toBe(400);
    expect(await count('rejected', 400)).toBe(before.notJson + 1);
    // --max-body 1000: a larger body is refused before it is verified or stored.
    const tooLarge = await count('rejected', 413);
    const large = JSON.stringify({ type: 'template-deleted', pad: 'x'.repeat(1000) });
    expect((await deliver(serve.url, large)).status).toBe(413);
    expect(await count('rejected', 413)).toBe(tooLarge + 1);
    const lines = (await readFile(logPath, 'utf8')).split('\n').filter((l) => l !== '');
    expect(lines.map((line) => JSON.parse(line).event.templateId)).toEqual([7, 8]);
  });

  it('writes one JSON line per request on stderr, data escaped so nothing reaches the terminal raw', async () => {
    const mark = serve.stderr().length;
    // A C1 control (CSI, U+009B) arrives as the byte 0x9B of a header value, which
    // JSON.stringify would leave raw; a tab is escaped by JSON itself.
    const id = 'evil\u009b[2J\tid';
    const body = eventBody(11);
    const head = [
      'POST /webhooks?token=secret HTTP/1.1',
      'host: 127.0.0.1',
      'connection: close',
      'content-type: application/json',
      `content-length: ${Buffer.byteLength(body)}`,
      `x-signature: ${signatureOf(body)}`,
      `x-delivery-id: ${id}`,
    ].join('\r\n');
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(serve.url).port), '127.0.0.1');
      let text = '';
      socket.setEncoding('latin1').on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(Buffer.from(`${head}\r\n\r\n${body}`, 'latin1'));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    await fetch(`${serve.url}/nowhere?x=1`);
    // A line is written once its answer is (a line of the previous test may still come too).
    const parsed = () => serve.logLines(mark);
    await eventually(() => parsed().some((line) => line.path === '/nowhere'), 'the 404');
    const raw = serve.stderr().slice(mark);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is that none are there.
    expect(raw).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028-\u202e]/);
    expect(raw).toContain('evil\\u009b[2J\\tid');
    const delivered = parsed().filter((line) => line.deliveryId === id);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({
      event: 'request',
      method: 'POST',
      path: '/webhooks',
      status: 200,
      deliveryId: id,
      outcome: 'stored',
    });
    expect(delivered[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(delivered[0]?.durationMs).toBeGreaterThan(0);
    expect(delivered[0]?.durationMs).toBeLessThan(60_000); // milliseconds, not a speed target
    // The line format docs/cli.md shows: the same members, in the same order.
    const example = /"event":"request"[^\n]*"outcome":"stored"[^\n]*/.exec(CLI_DOC)?.[0] ?? '';
    expect(Object.keys(delivered[0] ?? {})).toEqual(
      Object.keys(JSON.parse(`{"time":"t",${example}`)),
    );
    expect(parsed().filter((line) => line.path === '/nowhere')).toEqual([
      expect.objectContaining({ status: 404, deliveryId: null, outcome: null, method: 'GET' }),
    ]);
    const stored = (await readFile(logPath, 'utf8')).split('\n').filter((l) => l !== '');
    expect(JSON.parse(stored.at(-1) ?? '').deliveryId).toBe(id);
  });
});
