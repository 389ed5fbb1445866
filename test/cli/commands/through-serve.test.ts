/**
 * `reconcile` and `forget` on a file log that a real `serve --log` holds go through serve (issue
 * 46): with signed deliveries streaming in all the while, reconcile stores its observations once
 * and forget leaves the name in no file, every acknowledged delivery is kept, and later ones for
 * the person are stored with the pseudonym. A holder that is paused, killed after claiming, or
 * handed hostile request files never leaves the log half changed.
 */
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { events } from '../../../src/testing/index.js';
import {
  hostileLines,
  SAMPLE_OBSERVATION,
  WRITER_REQUEST_TAG,
} from '../../support/writer-request-fixtures.js';
import {
  envelope,
  participantEvent,
  ROOT,
  removeTempDirs,
  runCli,
  startCli,
  tempDir,
} from '../cli-helpers.js';
import {
  deliver,
  eventually,
  killLeftoverServes,
  type ServeProcess,
  startServe,
} from '../serve/serve-process.js';

const FETCH = join(ROOT, 'test/fixtures/reconcile/fetch-from-file.mjs');
const NAME = 'Qzxv Ümlautsson-Kwp';

/** Streams still sending (a test that failed before stopping its own): stopped before the serves. */
const streams = new Set<{ stop(): Promise<unknown> }>();

afterEach(async () => {
  await Promise.all([...streams].map((stream) => stream.stop().catch(() => undefined)));
  streams.clear();
  await killLeftoverServes();
});
afterAll(removeTempDirs);

/** A delivery naming the person (participant 7 of request 42), as the service sends it. */
const personBody = (n: number): string =>
  JSON.stringify({
    ...participantEvent('participant-viewed', 42, 7, false),
    partcipantName: NAME,
    n,
  });

/**
 * Sends signed deliveries, `senders` at a time, until `stop()`, each retried (as a sender does) until
 * serve acknowledges it; `stop` resolves with the ids acknowledged.
 */
const deliveryStream = (
  serve: ServeProcess,
  body: (n: number) => string,
  prefix: string,
  senders = 3,
) => {
  let stopped = false;
  let next = 0;
  const acknowledged: string[] = [];
  const refused: number[] = [];
  const send = async () => {
    while (!stopped) {
      const n = next;
      next += 1;
      const id = `${prefix}-${n}`;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const status = await deliver(serve.url, body(n), { 'x-delivery-id': id }).then(
          async (answer) => {
            await answer.arrayBuffer();
            return answer.status;
          },
          () => 0,
        );
        if (status === 200) break;
        refused.push(status);
        if (stopped) return;
        if (Date.now() > deadline) throw new Error(`delivery ${id} refused for 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      acknowledged.push(id);
    }
  };
  const running = Promise.all(Array.from({ length: senders }, send));
  const stream = {
    count: () => acknowledged.length,
    stop: async () => {
      stopped = true;
      streams.delete(stream);
      await running;
      return { acknowledged, refused };
    },
  };
  streams.add(stream);
  return stream;
};

const storedLines = async (log: string): Promise<Record<string, unknown>[]> =>
  (await readFile(log, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const deliveryIds = (lines: readonly Record<string, unknown>[]): string[] =>
  lines.map((line) => line.deliveryId).filter((id): id is string => typeof id === 'string');

const observations = (lines: readonly Record<string, unknown>[]) =>
  lines.filter((line) => (line.event as { record?: string }).record === 'observation');

const holdsName = async (dir: string): Promise<string[]> => {
  const held: string[] = [];
  for (const file of await readdir(dir)) {
    // serve removes a claimed request once it answered, perhaps between the listing and the read:
    // a file gone holds nothing.
    const bytes = await readFile(join(dir, file)).catch((cause: NodeJS.ErrnoException) => {
      if (cause.code === 'ENOENT') return Buffer.alloc(0);
      throw cause;
    });
    if (bytes.includes(Buffer.from(NAME)) || bytes.includes(Buffer.from('Ümlautsson'))) {
      held.push(file);
    }
  }
  return held;
};

/** Request 1000 and 1001 sent; the API says 1000 was completed (its deliveries were lost). */
const reconcileSetUp = async () => {
  const dir = await tempDir();
  const log = join(dir, 'events.ndjson');
  const lines = [1000, 1001].flatMap((id, i) => [
    envelope(i * 2 + 1, events.signRequestSent({ signRequestId: id })),
    envelope(i * 2 + 2, events.participantSent({ signRequestId: id })),
  ]);
  await writeFile(log, `${lines.join('\n')}\n`);
  const api = join(dir, 'api.json');
  const representation = (id: number, status: string, participant: string) => ({
    id,
    name: `Request ${id}`,
    status,
    formType: 'Form',
    savedTime: '2026-11-20 10:00:00',
    participants: [{ id: 5, name: 'Ada Lovelace', status: participant }],
  });
  await writeFile(
    api,
    JSON.stringify({
      1000: representation(1000, 'Completed', 'Signed'),
      1001: representation(1001, 'Sent', 'Sent'),
    }),
  );
  return { dir, log, env: { ...process.env, SIGNFOLD_API_FILE: api } };
};

const personSetUp = async () => {
  const dir = await tempDir();
  const log = join(dir, 'events.ndjson');
  await writeFile(
    log,
    `${[
      envelope(1, events.signRequestSent({ signRequestId: 42 })),
      envelope(2, { ...participantEvent('participant-sent', 42, 7, true), partcipantName: NAME }),
    ].join('\n')}\n`,
  );
  return { dir, log };
};

const templateBody = (n: number): string =>
  JSON.stringify({
    type: 'template-activated',
    companyId: 1,
    templateId: 5000 + n,
    templateName: 'NDA',
    ownerId: 10,
    ownerName: 'Olive Owner',
  });

/**
 * An answer file itself: not the temporary file beside it that serve writes it through (see
 * replaceFile), which a listing can catch just before its rename.
 */
const isAnswer = (name: string): boolean => /\.writer\.answer-[0-9a-f]{16}\.json$/.test(name);

const writerFiles = async (dir: string): Promise<string[]> =>
  (await readdir(dir)).filter((name) => name.includes('.writer.'));

describe('reconcile through a running serve --log', () => {
  it('repairs while serve takes deliveries: observations stored once, every delivery kept, a second run appends nothing', async () => {
    const { dir, log, env } = await reconcileSetUp();
    const serve = await startServe(['--log', log]);
    const stream = deliveryStream(serve, templateBody, 'live');
    await eventually(() => stream.count() >= 5, 'deliveries flowing');
    const started = Date.now();
    const first = await runCli(['reconcile', log, '--fetch', FETCH, '--rate', '50'], ROOT, env);
    const tookMs = Date.now() - started;
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr.trimEnd()).toBe(
      `signfold reconcile: went through the running process that holds ${log} (pid ${serve.child.pid})`,
    );
    expect(first.stdout).toMatch(
      /sign request 1000: repaired at position \d+: status: projection says sent, service says completed/,
    );
    expect(first.stdout).toContain(
      'reconcile: 2 sign requests asked: 1 repaired, 1 agrees, 0 unrepairable, 0 failed',
    );
    await eventually(() => stream.count() >= 10, 'deliveries flowing after the repair');
    const second = await runCli(
      ['reconcile', log, '--fetch', FETCH, '--sign-request', '1000', '--sign-request', '1001'],
      ROOT,
      env,
    );
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('sign request 1000: agrees');
    const { acknowledged } = await stream.stop();
    expect((await serve.stop()).code).toBe(0);

    const lines = await storedLines(log);
    const stored = new Set(deliveryIds(lines));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    expect(observations(lines)).toHaveLength(1);
    const position = Number(/repaired at position (\d+)/.exec(first.stdout)?.[1]);
    expect(observations(lines)[0]?.position).toBe(position);
    const replay = await runCli(['replay', log, '--json']);
    expect(JSON.parse(replay.stdout).counts.signRequests).toMatchObject({ completed: 1, sent: 1 });
    expect(await writerFiles(dir)).toEqual([]);
    console.log(`reconcile through serve: ${tookMs} ms, ${acknowledged.length} deliveries`);
  }, 120_000);
});

describe('forget through a running serve --log', () => {
  it('leaves the name in no file, keeps every delivery, stores later ones with the pseudonym; again, one pseudonym', async () => {
    const { dir, log } = await personSetUp();
    // Large enough that deliveries arrive while serve holds its appends back for the rewrite.
    const filler = Array.from({ length: 20_000 }, (_, i) =>
      envelope(i + 3, JSON.parse(personBody(i))),
    );
    await writeFile(log, `${(await readFile(log, 'utf8')) + filler.join('\n')}\n`);
    const serve = await startServe(['--log', log]);
    const stream = deliveryStream(serve, personBody, 'person');
    await eventually(() => stream.count() >= 5, 'deliveries flowing');
    const first = await runCli(['forget', log, '--name', NAME, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      `signfold forget: went through the running process that holds ${log} (pid ${serve.child.pid})`,
    );
    const report = JSON.parse(first.stdout) as { pseudonym: string; reused: boolean };
    expect(report.reused).toBe(false);
    await eventually(() => stream.count() >= 15, 'deliveries flowing after forget');
    const { acknowledged } = await stream.stop();
    // Deliveries that came after the forget, for the name it forgot: stored with the pseudonym.
    const late = await deliver(serve.url, personBody(-1), { 'x-delivery-id': 'late' });
    expect(late.status).toBe(200);

    const second = await runCli(['forget', log, '--name', NAME, '--json']);
    expect(second.code, second.stderr).toBe(0);
    const again = JSON.parse(second.stdout) as { pseudonym: string; reused: boolean };
    expect(again).toMatchObject({ pseudonym: report.pseudonym, reused: true });
    expect(serve.child.exitCode).toBe(null);
    expect((await serve.stop()).code).toBe(0);

    const lines = await storedLines(log);
    const stored = new Set(deliveryIds(lines));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    const lateLine = lines.find((line) => line.deliveryId === 'late');
    expect((lateLine?.event as { partcipantName?: string } | undefined)?.partcipantName).toBe(
      report.pseudonym,
    );
    expect(await holdsName(dir)).toEqual([]);
    expect(await writerFiles(dir)).toEqual([]);
    const replay = await runCli(['replay', log, '--json']);
    expect(replay.code).toBe(0);
    const held = serve
      .logLines()
      .filter((line) => line.event === 'forget')
      .map((line) => String(line.message));
    expect(held).toHaveLength(2);
    console.log(`forget through serve: ${held.join('; ')}; ${acknowledged.length} deliveries`);
  }, 120_000);

  it('with --reactors: serve stops them for the rewrite (their journal loses the name too) and starts them again', async () => {
    const { dir, log } = await personSetUp();
    const reactors = join(ROOT, 'test/fixtures/reactors/name-copier.mjs');
    const serve = await startServe(['--log', log, '--reactors', reactors]);
    const personAs = (type: string, participant: number) =>
      JSON.stringify({
        ...participantEvent(type, 42, participant, true),
        partcipantName: NAME,
        participantName: NAME,
      });
    const send = async (type: string, participant: number) =>
      (
        await deliver(serve.url, personAs(type, participant), {
          'x-delivery-id': `${type}-${participant}`,
        })
      ).status;
    expect(await send('participant-signed', 7)).toBe(200);
    await eventually(
      async () => (await readFile(`${log}.reactors`, 'utf8').catch(() => '')).includes(NAME),
      'the reactor to copy the name into its journal',
    );
    const run = await runCli(['forget', log, '--name', NAME, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const { pseudonym } = JSON.parse(run.stdout) as { pseudonym: string };
    expect(await holdsName(dir)).toEqual([]);
    // The reactors run again, and what they journal now carries the pseudonym.
    const count = async () => (await readFile(`${log}.reactors`, 'utf8')).split(pseudonym).length;
    const before = await count();
    expect(await send('participant-sent', 8)).toBe(200);
    expect(await send('participant-signed', 8)).toBe(200);
    await eventually(
      async () => (await count()) > before,
      'the reactor to react to a later delivery',
    );
    expect(await holdsName(dir)).toEqual([]);
    expect(serve.logLines().filter((line) => line.event === 'error')).toEqual([]);
    expect((await serve.stop()).code).toBe(0);
  }, 60_000);

  it('answers with what keeps it from forgetting when serve runs the read API', async () => {
    const { log } = await personSetUp();
    const serve = await startServe(['--log', log, '--read-token-env', 'READ_ONE:1'], {
      ...process.env,
      SIGNFOLD_WEBHOOK_SECRET: 'test-secret-0123456789',
      READ_ONE: 'read-token-0123456789abcdef',
    });
    const before = await readFile(log);
    const run = await runCli(['forget', log, '--participant', '7']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("signfold forget cannot go through this 'signfold serve'");
    expect(run.stderr).toContain('the read API');
    expect(run.stderr).toContain('stop serve, run forget, start serve again');
    expect(await readFile(log)).toEqual(before);
    expect((await serve.stop()).code).toBe(0);
  }, 60_000);
});

describe('a holder that does not answer', () => {
  it('paused (SIGSTOP): each command gives up within its bound and changes nothing; after SIGCONT serve goes on', async () => {
    const { dir, log, env } = await reconcileSetUp();
    const serve = await startServe(['--log', log]);
    const before = await readFile(log);
    serve.child.kill('SIGSTOP');
    try {
      for (const args of [
        ['reconcile', log, '--fetch', FETCH, '--wait', '2'],
        ['forget', log, '--participant', '5', '--wait', '2'],
      ]) {
        const command = `signfold ${args[0]}`;
        const started = Date.now();
        const run = await runCli(args, ROOT, env);
        const tookMs = Date.now() - started;
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toContain(`${command} cannot write: event log ${log} is locked by pid`);
        expect(run.stderr).toContain(
          `did not take ${command}'s request within 2 s (only a running 'signfold serve --log' takes them`,
        );
        expect(run.stderr).toContain('nothing was changed');
        expect(run.stderr).toContain("stop 'signfold serve --log'");
        expect(tookMs).toBeLessThan(15_000);
        expect(run.stdout).toBe('');
      }
      expect(await writerFiles(dir)).toEqual([]);
    } finally {
      serve.child.kill('SIGCONT');
    }
    const answer = await deliver(serve.url, templateBody(1), { 'x-delivery-id': 'after-cont' });
    expect(answer.status).toBe(200);
    expect((await serve.stop()).code).toBe(0);
    const lines = await storedLines(log);
    expect(lines.slice(0, 4)).toEqual(
      before
        .toString()
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    );
    expect(observations(lines)).toEqual([]);
    expect(deliveryIds(lines)).toEqual(['after-cont']);
    expect(await writerFiles(dir)).toEqual([]);
  }, 90_000);

  it('killed after claiming a forget: the command says so within its bound, the log is whole, forget again finishes', async () => {
    const { dir, log } = await personSetUp();
    // A log large enough that the rewrite takes a while.
    const filler = Array.from({ length: 60_000 }, (_, i) =>
      envelope(i + 3, {
        ...participantEvent('participant-viewed', 42, 7, false),
        partcipantName: NAME,
      }),
    );
    await writeFile(log, `${(await readFile(log, 'utf8')) + filler.join('\n')}\n`);
    const serve = await startServe(['--log', log]);
    const forget = startCli(['forget', log, '--name', NAME, '--wait', '5']);
    try {
      // Printed once the hello was answered. The hello's claimed file may still be there then
      // (serve writes the answer, fsyncs, and only then removes it), so the forget's is one that
      // was not there yet, or one still there half a second later.
      let helloTime: { names: Set<string>; at: number } | undefined;
      await eventually(
        async () => {
          if (!forget.stderr().includes('went through')) return false;
          const claimed = (await writerFiles(dir)).filter((name) => name.includes('.claimed-'));
          helloTime ??= { names: new Set(claimed), at: Date.now() };
          const { names, at } = helloTime;
          return claimed.some((name) => !names.has(name) || Date.now() - at >= 500);
        },
        'serve to claim the forget',
        { intervalMs: 5 },
      );
      serve.child.kill('SIGKILL');
      const started = Date.now();
      const run = await forget.closed;
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(
        `pid ${serve.child.pid} took the request but exited before answering`,
      );
      expect(run.stderr).toContain('run forget again');
    } finally {
      forget.child.kill('SIGKILL');
    }
    await serve.exited;
    // Whole: every line parses, old or new.
    const lines = await storedLines(log);
    expect(lines.length).toBe(60_002);
    const again = await runCli(['forget', log, '--name', NAME]);
    expect(again.code, again.stderr).toBe(0);
    expect(await holdsName(dir)).toEqual([]);
  }, 120_000);
});

describe('request files beside the log that serve holds', () => {
  it('hostile and mutated ones are answered with an error and change nothing; a valid one sent twice is stored once', async () => {
    const { dir, log } = await reconcileSetUp();
    const serve = await startServe(['--log', log]);
    const before = await readFile(log);
    const corpus = hostileLines();
    const tag = WRITER_REQUEST_TAG;
    const observation = SAMPLE_OBSERVATION;
    const wrapped = (records: unknown) =>
      JSON.stringify({ signfold: tag, action: 'observations', records });
    const bodies = [
      ...corpus,
      ...corpus.map((line) => line.slice(0, Math.floor(line.length / 2))),
      ...corpus.map((line) => wrapped([line])),
      ...corpus.map((line) => {
        try {
          return wrapped([JSON.parse(line)]);
        } catch {
          return wrapped(line);
        }
      }),
      ...corpus.map((line) => {
        try {
          const event = JSON.parse(line) as unknown;
          return wrapped([{ ...observation, signRequest: event }]);
        } catch {
          return wrapped([{ ...observation, signRequestId: line }]);
        }
      }),
      ...corpus.map((line) =>
        JSON.stringify({ signfold: tag, action: 'forget', forget: { names: [line, ''] } }),
      ),
      JSON.stringify({ signfold: tag, action: 'observations', records: [] }),
      wrapped([{ ...observation, signRequestId: 1001 }]),
      wrapped([{ ...observation, fetchedAt: 'yesterday' }]),
      wrapped([{ ...observation, companyId: 0.5 }]),
      wrapped([{ ...observation, record: 'event' }]),
      JSON.stringify({
        signfold: tag,
        action: 'forget',
        forget: { participantIds: [], userIds: [], names: [] },
      }),
      JSON.stringify({
        signfold: tag,
        action: 'forget',
        forget: { participantIds: ['5'], names: [] },
      }),
      `{"signfold":"${tag}","action":"forget","forget":{"participantIds":[1e400],"names":[]}}`,
      JSON.stringify({ signfold: tag, action: 'forget', forget: { names: ['A\u0301'] } }),
      JSON.stringify({ signfold: tag, action: 'drop' }),
      JSON.stringify({ signfold: 'signfold-effects-edit', edit: 'retry', ids: [1] }),
      '[]',
      'null',
      '"x"'.repeat(10_000),
    ];
    // Byte flips of a valid request.
    const valid = Buffer.from(wrapped([observation]));
    for (let i = 0; i < 40; i += 1) {
      const flipped = Buffer.from(valid);
      const at = (i * 37) % flipped.length;
      flipped[at] = (flipped[at] ?? 0) ^ (1 << (i % 8));
      const text = flipped.toString('utf8');
      if (text !== valid.toString('utf8')) bodies.push(text);
    }
    for (const [i, body] of bodies.entries()) {
      const id = i.toString(16).padStart(16, '0');
      await writeFile(`${log}.writer.request-${id}.json`, body);
    }
    const answers = async () => (await readdir(dir)).filter(isAnswer);
    await eventually(
      async () => (await answers()).length === bodies.length,
      'an answer to every request',
      { deadlineMs: 60_000 },
    );
    let applied = 0;
    for (const name of await answers()) {
      const answer = JSON.parse(await readFile(join(dir, name), 'utf8')) as Record<string, unknown>;
      if (answer.error === undefined) applied += 1;
    }
    // Some byte flips leave a valid request (a flipped letter of the name): those are stored.
    const storedNow = observations(await storedLines(log));
    expect(storedNow.length).toBeLessThanOrEqual(applied);
    for (const line of storedNow) {
      expect((line.event as { signRequestId: number }).signRequestId).toBe(1000);
    }
    expect((await readFile(log)).subarray(0, before.length)).toEqual(before);
    expect(serve.child.exitCode).toBe(null);

    // A valid request written twice (a command retried): stored once.
    const cleanDir = await reconcileSetUp();
    const serve2 = await startServe(['--log', cleanDir.log]);
    for (const id of ['00000000000000a1', '00000000000000a2']) {
      // Whole, by rename, as a command writes it (a file half written is answered "not JSON").
      const path = `${cleanDir.log}.writer.request-${id}.json`;
      await writeFile(`${path}.tmp`, valid);
      await rename(`${path}.tmp`, path);
    }
    const answered = async () => (await readdir(cleanDir.dir)).filter(isAnswer);
    await eventually(async () => (await answered()).length === 2, 'both answers');
    const twice = await Promise.all(
      (await answered()).map(async (name) =>
        JSON.parse(await readFile(join(cleanDir.dir, name), 'utf8')),
      ),
    );
    expect(twice.map((a) => a.appended[0].duplicate).sort()).toEqual([false, true]);
    expect(twice[0].appended[0].position).toBe(twice[1].appended[0].position);
    expect(observations(await storedLines(cleanDir.log))).toHaveLength(1);
    const answer = await deliver(serve.url, templateBody(2), { 'x-delivery-id': 'after' });
    expect(answer.status).toBe(200);
    expect((await serve.stop()).code).toBe(0);
    expect((await serve2.stop()).code).toBe(0);
  }, 120_000);
});
