/**
 * The webhook handler's `fetch` (a WHATWG `Request` in, a `Response` out),
 * mounted in Hono and, through signfold/http's `nodeListener`, in
 * node:http: the hostile corpus (see ../shared/hostile/README.md) delivered
 * line by line gets, from each, the answer the node path
 * (`handleNodeRequest`) gives it, and stores the same records; what it
 * stores folds to the verdicts `replay` gives the corpus. An oversize body
 * is 413, declared or streamed.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventLog, LogRecord } from '../../src/engine/event-log.js';
import { createProjector } from '../../src/engine/projector.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { signWebhookBody } from '../../src/webhooks/sign-payload.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';
import { removeTempDirs, tempDir } from '../cli/cli-helpers.js';
import { MOUNTS, type Mounted } from '../http/fixtures/mount.js';
import { HOSTILE_CORPUS } from '../support/hostile-corpus.js';
import {
  deliveredReference,
  hostileDeliveries,
  type Verdict,
  verdictOf,
} from '../support/hostile-deliveries.js';
import { type Served, serveNode } from './fixtures/http-servers.js';

const SECRET = 'hostile fetch secret';
const MAX = 256 * 1024;
const CORPUS = readFileSync(HOSTILE_CORPUS);

/** What one path answered to one line. */
interface Answer {
  readonly line: number;
  readonly status: number;
  readonly body: string;
}

const recordsOf = async (log: EventLog): Promise<LogRecord[]> => {
  const all: LogRecord[] = [];
  for await (const batch of log.read()) all.push(...batch);
  return all;
};

/** The stored records without what differs between runs (the time received). */
const comparable = (records: readonly LogRecord[]) =>
  records.map((record) =>
    record.kind === 'entry'
      ? { position: record.position, deliveryId: record.deliveryId, event: record.event }
      : record,
  );

/** Delivers every line of the corpus to `url`, signed, one after the other. */
const deliverAll = async (url: string): Promise<Answer[]> => {
  const answers: Answer[] = [];
  for (const { line, body, deliveryId } of hostileDeliveries(CORPUS)) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-signature': signWebhookBody(body, SECRET),
      ...(deliveryId === undefined ? {} : { 'x-delivery-id': deliveryId }),
    };
    const response = await fetch(url, { method: 'POST', body, headers });
    answers.push({ line, status: response.status, body: await response.text() });
  }
  return answers;
};

afterAll(removeTempDirs);

let nodeAnswers: Answer[];
let nodeRecords: LogRecord[];

beforeAll(async () => {
  const log = createMemoryEventLog();
  const served: Served = await serveNode(
    createWebhookHandler({ log, secrets: [SECRET], maxBodyBytes: MAX }),
    MAX,
  );
  try {
    nodeAnswers = await deliverAll(served.url);
  } finally {
    await served.close();
  }
  nodeRecords = await recordsOf(log);
}, 120_000);

describe.each(Object.keys(MOUNTS) as (keyof typeof MOUNTS)[])('fetch, mounted in %s', (name) => {
  let log: ReturnType<typeof createMemoryEventLog>;
  let mounted: Mounted;
  beforeAll(async () => {
    log = createMemoryEventLog();
    mounted = await MOUNTS[name](
      createWebhookHandler({ log, secrets: [SECRET], maxBodyBytes: MAX }),
    );
  });
  afterAll(async () => {
    await mounted?.close();
  });

  it('answers every hostile line as the node path does, and stores the same records', async () => {
    const answers = await deliverAll(`${mounted.url}/webhooks`);
    expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
    expect(answers).toEqual(nodeAnswers);
    const records = await recordsOf(log);
    expect(comparable(records)).toEqual(comparable(nodeRecords));
    // What was stored folds, line by line, to replay's verdicts of the corpus.
    const reference = await deliveredReference(CORPUS, await tempDir());
    const projector = createProjector();
    const stored = answers.filter(
      (answer) => answer.status === 200 && !answer.body.includes('"duplicate":true'),
    );
    const verdicts = new Map<number, Verdict>();
    records.forEach((record, index) => {
      verdicts.set(stored[index]?.line ?? -1, verdictOf(projector, record));
    });
    for (const [line, verdict] of verdicts) {
      expect(verdict, `line ${line}`).toBe(reference.verdicts.get(line));
    }
  });

  it('answers 413 to a body over the limit, declared or streamed, and stores nothing', async () => {
    const before = (await recordsOf(log)).length;
    const big = new Uint8Array(MAX + 1).fill(0x20);
    const headers = { 'x-signature': signWebhookBody(big, SECRET) };
    const declared = await fetch(`${mounted.url}/webhooks`, { method: 'POST', body: big, headers });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ error: `body larger than ${MAX} bytes` });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let sent = 0; sent <= MAX; sent += 64 * 1024)
          controller.enqueue(new Uint8Array(64 * 1024));
        controller.close();
      },
    });
    const streamed = await fetch(`${mounted.url}/webhooks`, {
      method: 'POST',
      body: stream,
      headers,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    await streamed.arrayBuffer();
    expect((await recordsOf(log)).length).toBe(before);
  });
});
