/**
 * The simulator of the e-signature service: its events are the spec's (signfold decodes every
 * one, and folding them in order gives the simulator's truth), its channel is seeded, its read
 * API answers representations that decode and match the truth, and, against a real
 * `signfold serve`, what reaches the log rebuilds the truth exactly when nothing is lost, while
 * `compareSignRequest` finds exactly the requests whose losses hid a status.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { decodeEvent } from '../../src/core/events/decode-event.js';
import { EVENT_MEMBERS, EVENT_TYPES } from '../../src/core/events/event-members.js';
import type { SignEvent } from '../../src/core/events/sign-event.js';
import { compareSignRequest } from '../../src/core/projections/compare-sign-request.js';
import { loadSignRequest } from '../../src/core/projections/load-sign-request.js';
import { initialState } from '../../src/core/projections/projection-state.js';
import { fold } from '../../src/core/projections/reduce.js';
import { decodeSignRequest } from '../../src/core/sign-request/decode-sign-request.js';
import { participantStatusText } from '../../src/core/sign-request/participant-status.js';
import { createProjector } from '../../src/engine/projector.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { handleNodeRequest } from '../../src/webhooks/node-request.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';
import { removeTempDirs, tempDir } from '../cli/cli-helpers.js';
import { SECRET, startServe } from '../cli/serve/serve-process.js';
import {
  createEsignSimulator,
  type DeliveryPlan,
  type EsignSimulator,
  type SigningOrder,
} from './esign-simulator.js';
import { requestsMissingEvidence } from './lost-evidence.js';
import fetchSignRequest, { SIMULATOR_FETCH_MODULE } from './simulator-fetch.js';
import { truthDifferences } from './truth-differences.js';

const simulators: EsignSimulator[] = [];
const simulator = (
  seed: number,
  signRequests = 40,
  signingOrder: SigningOrder = 'parallel',
): EsignSimulator => {
  const made = createEsignSimulator({ seed, signRequests, signingOrder });
  simulators.push(made);
  return made;
};
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(simulators.splice(0).map((s) => s.close()));
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
  delete process.env.SIGNFOLD_SIMULATOR_URL;
});
afterAll(removeTempDirs);

const decodedStory = (sim: EsignSimulator): SignEvent[] =>
  sim.events.map(({ event }) => decodeEvent(event)._unsafeUnwrap());

/**
 * How many places (in sending order) the nearest signature of a declined request is sent before
 * its decline. signfold refuses a `participant-signed` that arrives after its request's
 * `sign-request-declined` (docs/status-rules.md; pinned below), so the exact checks against
 * serve use stories where no delivery in flight or held back can carry a signature past it.
 */
const signatureLeadOverDecline = (sim: EsignSimulator, plan: DeliveryPlan): number => {
  const places = new Map<number, number[]>();
  plan.deliveries.forEach((delivery, place) => {
    places.set(delivery.eventIndex, [...(places.get(delivery.eventIndex) ?? []), place]);
  });
  let lead = Number.POSITIVE_INFINITY;
  for (const decline of sim.events) {
    if (decline.event.type !== 'sign-request-declined') continue;
    for (const signature of sim.events) {
      if (
        signature.event.type !== 'participant-signed' ||
        signature.event.signRequestId !== decline.event.signRequestId
      ) {
        continue;
      }
      for (const at of places.get(signature.index) ?? []) {
        for (const declined of places.get(decline.index) ?? [])
          lead = Math.min(lead, declined - at);
      }
    }
  }
  return lead;
};

describe('the story', () => {
  it('is made of events signfold decodes, with exactly the members of spec §6.2, of all 12 types', () => {
    const seen = new Set<string>();
    for (let seed = 1; seed <= 12; seed += 1) {
      const order = seed % 2 === 0 ? 'parallel' : 'sequential';
      for (const { event, text } of simulator(seed, 30, order).events) {
        const type = String(event.type) as (typeof EVENT_TYPES)[number];
        seen.add(type);
        const decoded = decodeEvent(JSON.parse(text));
        expect(decoded.isOk(), `${text}: ${JSON.stringify(decoded)}`).toBe(true);
        // Spelled as the service spells it (§6.1 rule 2): participantName never appears.
        const wireMembers = EVENT_MEMBERS[type].map((name) =>
          name === 'participantName' ? 'partcipantName' : name,
        );
        expect(Object.keys(event).sort()).toEqual(['type', ...wireMembers].sort());
      }
    }
    expect([...seen].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('folded in order, without loss, gives the truth and not one conflict', () => {
    for (let seed = 1; seed <= 12; seed += 1) {
      const sim = simulator(seed, 30, seed % 2 === 0 ? 'parallel' : 'sequential');
      const { state, conflicts } = fold(initialState(), decodedStory(sim));
      expect(conflicts, `seed ${seed}`).toEqual([]);
      expect(truthDifferences(state, sim.truth()), `seed ${seed}`).toEqual([]);
    }
  });

  it('is the same for the same seed, deliveries included, and another for another seed', () => {
    const faults = { loss: 0.05, reorder: 0.2, duplicate: 0.05, delay: 0.1 };
    const [a, b, c] = [simulator(7), simulator(7), simulator(8)];
    expect(b.events).toEqual(a.events);
    expect(b.truth()).toEqual(a.truth());
    expect(b.plan(faults)).toEqual(a.plan(faults));
    expect(c.events.map((e) => e.text)).not.toEqual(a.events.map((e) => e.text));
    expect(c.plan(faults).lost).not.toEqual(a.plan(faults).lost);
  });

  it('pins a defect it found: a signature delivered after its request was declined is refused', () => {
    // Seed 26: participant 9024 signs, then another participant declines request 5012; the
    // channel moves the signature behind the sign-request-declined. The service says signed;
    // signfold (docs/status-rules.md, "Sign request declined") calls the late signature an
    // invalid transition and keeps viewed. When that rule changes, this expectation becomes [].
    const sim = simulator(26, 20);
    const plan = sim.plan({ reorder: 0.2 });
    expect(signatureLeadOverDecline(sim, plan)).toBeLessThan(0);
    const delivered = plan.deliveries.map((d) => decodeEvent(JSON.parse(d.body))._unsafeUnwrap());
    const { state, conflicts } = fold(initialState(), delivered);
    expect(truthDifferences(state, sim.truth())).toEqual([
      'participant 5012/9024: viewed ≠ signed',
    ]);
    expect(conflicts.map((c) => c.message)).toContainEqual(
      expect.stringMatching(/^participant-signed conflicts with sign-request 5012 \(declined\)/),
    );
  });

  it('a participant not sent yet (signing in sequence) is no missed webhook: reconcile agrees, loading leaves it out', () => {
    // The service lists every participant of a request, those it has not sent it to yet
    // included (without a status). No event can have told the receiver of them: reconcile
    // must not call them missing, and a load must not make them sent (a reminder would reach them).
    const sim = simulator(4, 30, 'sequential');
    const { state } = fold(initialState(), decodedStory(sim));
    expect(truthDifferences(state, sim.truth())).toEqual([]);
    const waiting = sim
      .truth()
      .signRequests.filter((r) => !r.deleted && r.status === 'sent')
      .flatMap((r) => r.participants.filter((p) => p.status === null).map((p) => [r.id, p.id]));
    expect(waiting.length).toBeGreaterThan(0);
    for (const [requestId, participantId] of waiting) {
      const reported = decodeSignRequest(sim.representation(requestId ?? 0))._unsafeUnwrap();
      expect(compareSignRequest(state, reported)).toEqual([]);
      const loaded = loadSignRequest(state, reported)._unsafeUnwrap();
      expect(
        loaded.participants.get(requestId as never)?.get(participantId as never),
      ).toBeUndefined();
    }
  });

  it('is refused above its bound, so a test cannot ask for a slow one', () => {
    expect(() => createEsignSimulator({ seed: 1, signRequests: 10_000 })).toThrow(RangeError);
    expect(() => createEsignSimulator({ seed: 1, templates: 0 })).toThrow(RangeError);
  });
});

describe('the channel', () => {
  it('loses, duplicates (same delivery id), reorders and delays at about the rates asked', () => {
    const sim = simulator(3, 60);
    const events = sim.events.length;
    const plan = sim.plan({ loss: 0.1, duplicate: 0.1, reorder: 0.2, delay: 0.1, window: 5 });
    const byId = new Map<string, number[]>();
    plan.deliveries.forEach((delivery, place) => {
      byId.set(delivery.deliveryId, [...(byId.get(delivery.deliveryId) ?? []), place]);
      expect(delivery.body).toBe(sim.events[delivery.eventIndex]?.text);
    });
    // Lost ones never go; a duplicate goes twice, under its one id; everything else once.
    expect(plan.lost.filter((id) => byId.has(id))).toEqual([]);
    for (const event of sim.events) {
      if (plan.lost.includes(event.deliveryId)) continue;
      expect(byId.get(event.deliveryId)?.length).toBe(
        plan.duplicated.includes(event.deliveryId) ? 2 : 1,
      );
    }
    expect(plan.deliveries.length).toBe(events - plan.lost.length + plan.duplicated.length);
    // Binomial draws over ~500 events: the bounds are ±4 standard deviations or more.
    for (const [list, rate] of [
      [plan.lost, 0.1],
      [plan.duplicated, 0.09],
      [plan.reordered, 0.18],
    ] as const) {
      expect(list.length).toBeGreaterThan(events * rate * 0.4);
      expect(list.length).toBeLessThan(events * rate * 1.8);
    }
    expect(plan.delayed.length).toBeGreaterThan(0);
    const ordered = plan.deliveries.map((d) => d.eventIndex);
    expect(ordered).not.toEqual([...ordered].sort((x, y) => x - y));
    const perfect = sim.plan({});
    expect(perfect.deliveries.map((d) => d.eventIndex)).toEqual(sim.events.map((e) => e.index));
  });

  it('signs as serve verifies, retries 5xx and lost connections, never a 4xx', async () => {
    const sim = simulator(5, 3);
    const log = createMemoryEventLog();
    const handler = createWebhookHandler({ log, secrets: [SECRET] });
    const [first, second, third] = sim.events.map((e) => e.deliveryId);
    const attempts = new Map<string, number>();
    const server = createServer((request, response) => {
      const id = String(request.headers['x-delivery-id']);
      const attempt = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, attempt);
      if (id === first && attempt <= 2) return void response.writeHead(503).end('busy');
      if (id === second && attempt === 1) return void request.socket.destroy();
      if (id === third) return void response.writeHead(422).end('no');
      void handleNodeRequest(handler, request, response, { maxBodyBytes: 256 * 1024 });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const report = await sim.deliver(
      {},
      { url: `http://127.0.0.1:${port}/webhooks`, secret: SECRET, retryDelayMs: 10 },
    );
    const result = (id: string | undefined) => report.results.find((r) => r.deliveryId === id);
    expect(result(first)).toMatchObject({ outcome: 'delivered', attempts: 3, status: 200 });
    expect(result(second)).toMatchObject({ outcome: 'delivered', attempts: 2, status: 200 });
    expect(result(third)).toMatchObject({ outcome: 'rejected', attempts: 1, status: 422 });
    expect(attempts.get(third ?? '')).toBe(1);
    // Every other delivery verified on the first try: a wrong signature would be a 401.
    expect(report.delivered).toBe(sim.events.length - 1);
    expect(
      report.results
        .filter((r) => r.attempts > 1)
        .map((r) => r.deliveryId)
        .sort(),
    ).toEqual([first, second].sort());
    expect(report.retries).toBe(3);

    // A wrong key: serve's 401, which is a 4xx, so never sent again.
    const unsigned = await sim.deliver(
      {},
      { url: `http://127.0.0.1:${port}/webhooks`, secret: 'wrong' },
    );
    const others = unsigned.results.filter((r) => ![first, second, third].includes(r.deliveryId));
    expect(others.length).toBeGreaterThan(0);
    for (const r of others)
      expect(r).toMatchObject({ outcome: 'rejected', attempts: 1, status: 401 });
  });

  it('gives up after its retries, each attempt bounded by its timeout', async () => {
    const sim = simulator(5, 1);
    // Accepts and never answers: only the per-attempt timeout ends a delivery here.
    const server = createServer(() => {});
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const report = await sim.deliver(
      {},
      {
        url: `http://127.0.0.1:${port}/`,
        secret: SECRET,
        timeoutMs: 200,
        retries: 1,
        retryDelayMs: 1,
      },
    );
    expect(report.failed).toBe(sim.events.length);
    for (const result of report.results) {
      expect(result).toMatchObject({ outcome: 'failed', attempts: 2, status: null });
      expect(result.error).toMatch(/TimeoutError/);
    }
  });
});

describe('the read API', () => {
  it('answers every request as §2 shows it: it decodes and matches the truth; deleted and unknown are 404', async () => {
    const sim = simulator(11, 60);
    const api = await sim.listen();
    process.env.SIGNFOLD_SIMULATOR_URL = api.url;
    let deleted = 0;
    for (const request of sim.truth().signRequests) {
      if (request.deleted) {
        deleted += 1;
        await expect(fetchSignRequest(request.id, {})).rejects.toThrow(/answered 404/);
        continue;
      }
      const body = await fetchSignRequest(request.id, {});
      const decoded = decodeSignRequest(body);
      expect(decoded.isOk(), JSON.stringify(decoded)).toBe(true);
      const representation = decoded._unsafeUnwrap();
      expect(representation.status).toBe(request.status);
      expect(
        (representation.participants ?? []).map((p) => ({
          id: p.id,
          status: p.status === undefined ? null : participantStatusText(p.status),
        })),
      ).toEqual(request.participants);
      // The statuses are capitalised as the spec's samples are.
      expect(JSON.stringify(body)).toMatch(/"status":"[A-Z]/);
    }
    expect(deleted).toBeGreaterThan(0);
    await expect(fetchSignRequest(424242, {})).rejects.toThrow(
      /GET http:\/\/127\.0\.0\.1:\d+\/sign-requests\/424242 answered 404/,
    );
  });

  it('injects failures per id, and the fetch module reports each clearly and honours its signal', async () => {
    const sim = simulator(11, 4);
    const [a, b, c, d] = sim
      .truth()
      .signRequests.filter((r) => !r.deleted)
      .map((r) => r.id);
    expect(d).toBeDefined();
    const api = await sim.listen(
      new Map([
        [a ?? 0, { kind: 'status', status: 500, times: 1 } as const],
        [b ?? 0, { kind: 'garbage' } as const],
        [c ?? 0, { kind: 'invalid' } as const],
        [d ?? 0, { kind: 'slow', delayMs: 60_000 } as const],
      ]),
    );
    process.env.SIGNFOLD_SIMULATOR_URL = `${api.url}/`;
    await expect(fetchSignRequest(a ?? 0, {})).rejects.toThrow(/answered 500 .*injected failure/);
    // `times: 1`: the service recovers.
    expect(decodeSignRequest(await fetchSignRequest(a ?? 0, {})).isOk()).toBe(true);
    await expect(fetchSignRequest(b ?? 0, {})).rejects.toThrow(/body that is not JSON: "<html>/);
    expect(decodeSignRequest(await fetchSignRequest(c ?? 0, {})).isErr()).toBe(true);
    const started = Date.now();
    await expect(
      fetchSignRequest(d ?? 0, { signal: AbortSignal.timeout(100) }),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
    // Far below the 60 s the answer would take: the signal ended it.
    expect(Date.now() - started).toBeLessThan(30_000);
    const controller = new AbortController();
    const pending = fetchSignRequest(d ?? 0, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    delete process.env.SIGNFOLD_SIMULATOR_URL;
    await expect(fetchSignRequest(a ?? 0, {})).rejects.toThrow(/SIGNFOLD_SIMULATOR_URL is not set/);
  });

  it('its fetch module loads in a plain Node process, as the CLI will load it', async () => {
    const sim = simulator(11, 4);
    const api = await sim.listen();
    const id = sim.truth().signRequests.find((r) => !r.deleted)?.id;
    const script = `const { default: f } = await import(${JSON.stringify(pathToFileURL(SIMULATOR_FETCH_MODULE).href)});
      process.stdout.write(JSON.stringify(await f(${id}, { signal: AbortSignal.timeout(20000) })));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '--eval', script],
      { env: { ...process.env, SIGNFOLD_SIMULATOR_URL: api.url } },
    );
    expect(JSON.parse(stdout)).toEqual(sim.representation(id ?? 0));
  });
});

describe('against signfold serve', () => {
  /** Starts serve on a fresh log, delivers the story with `faults`, stops serve; the log's state. */
  const serveAndProject = async (
    sim: EsignSimulator,
    faults: Parameters<EsignSimulator['deliver']>[0],
  ) => {
    const path = join(await tempDir(), 'events.ndjson');
    const serve = await startServe(['--log', path]);
    let report: Awaited<ReturnType<EsignSimulator['deliver']>>;
    try {
      report = await sim.deliver(faults, {
        url: `${serve.url}/webhooks`,
        secret: SECRET,
        concurrency: 4,
        // Generous: an fsync on a busy shared disk can take seconds; only a hang should fail.
        timeoutMs: 15_000,
      });
    } finally {
      const exit = await serve.stop();
      expect(exit.code).toBe(0);
    }
    const deliveryIds: string[] = [];
    for await (const batch of readFileEventLog(path)) {
      for (const record of batch) {
        if (record.kind === 'entry' && record.deliveryId !== undefined) {
          deliveryIds.push(record.deliveryId);
        }
      }
    }
    const projector = createProjector({ policy: 'skip' });
    (await projector.replay({ read: (o) => readFileEventLog(path, o) }))._unsafeUnwrap();
    return { report, state: projector.state(), deliveryIds };
  };

  it('with 20 % reordered and 5 % duplicated, the log rebuilds every status of the truth', async () => {
    const sim = simulator(396, 60);
    const faults = { loss: 0, reorder: 0.2, duplicate: 0.05, delay: 0.05 };
    expect(signatureLeadOverDecline(sim, sim.plan(faults))).toBeGreaterThan(60);
    const { report, state, deliveryIds } = await serveAndProject(sim, faults);
    expect(report).toMatchObject({ failed: 0, rejected: 0, lost: [] });
    expect(report.delivered).toBe(report.planned);
    expect(report.duplicated.length).toBeGreaterThan(0);
    expect(report.reordered.length).toBeGreaterThan(0);
    // Each event stored once: its duplicate was recognised by its delivery id.
    expect(deliveryIds.sort()).toEqual(sim.events.map((e) => e.deliveryId).sort());
    expect(truthDifferences(state, sim.truth())).toEqual([]);
  });

  it('with 5 % lost, compareSignRequest finds exactly the requests whose losses hid a status', async () => {
    const sim = simulator(396, 60);
    const faults = { loss: 0.05, reorder: 0.2, duplicate: 0.05 };
    expect(signatureLeadOverDecline(sim, sim.plan(faults))).toBeGreaterThan(60);
    const { report, state } = await serveAndProject(sim, faults);
    expect(report).toMatchObject({ failed: 0, rejected: 0 });
    const expected = requestsMissingEvidence(sim.events, sim.truth(), new Set(report.lost));
    // The seed is chosen so that the losses matter for some requests and not for others.
    expect(expected.length).toBeGreaterThan(0);
    const touched = new Set(
      sim.events
        .filter((e) => report.lost.includes(e.deliveryId))
        .map((e) => e.event.signRequestId),
    );
    expect(
      [...touched].filter((id) => id !== undefined && !expected.includes(Number(id))).length,
    ).toBeGreaterThan(0);

    const api = await sim.listen();
    process.env.SIGNFOLD_SIMULATOR_URL = api.url;
    const drifted: number[] = [];
    for (const request of sim.truth().signRequests) {
      if (request.deleted || request.status === 'draft') continue;
      const reported = decodeSignRequest(await fetchSignRequest(request.id, {}))._unsafeUnwrap();
      if (compareSignRequest(state, reported).length > 0) drifted.push(request.id);
    }
    expect(drifted).toEqual(expected);
  });
});
