/**
 * The shared hostile corpus (`../shared/hostile/hostile.ndjson`, see its README) through every
 * input path that takes events from a file or a request: `replay`, `check`, `inspect`, `report`,
 * and both webhook recipes line by line (the file one and the PostgreSQL one, followed by
 * `pg work --drain`). Each line gets the verdict the library's own fold of the file gives it,
 * nothing is skipped silently, no path crashes or halts, and the clean lifecycle of sign
 * request 5001 ends `completed` with participant 3 `signed`. (`pg import` + `pg work` with one and
 * three workers are in test/postgres/hostile-corpus.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { participantId, signRequestId } from '../../src/core/ids.js';
import type { LogRecord } from '../../src/engine/event-log.js';
import type { Projector } from '../../src/engine/projector.js';
import { createProjector } from '../../src/engine/projector.js';
import { migrate } from '../../src/postgres/schema/migrate.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { HOSTILE_CORPUS } from '../support/hostile-corpus.js';
import {
  corpusLineBytes,
  isJsonBlank,
  type Verdict,
  verdictOf,
} from '../support/hostile-deliveries.js';
import { expectEqualsSequentialFold } from '../support/partition-checks.js';
import { throwawayPostgres } from '../support/postgres-server.js';
import { sortedRecords, untimedRecords } from '../support/projection-records.js';

const CORPUS = HOSTILE_CORPUS;

/** Code points the CLI must never print from data: C0 but tab and LF, DEL, C1, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point of the check
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/**
 * The reference: the library's projector applying the records of the file one by one. Envelope
 * order exists only in files: an envelope refused as out of order there is, over HTTP, just its
 * event, so `delivered` is the same fold with such a line's event applied in its place.
 */
const referenceFold = async () => {
  const projector = createProjector();
  const delivered = createProjector();
  const verdicts = new Map<number, Verdict>();
  const deliveredVerdicts = new Map<number, Verdict>();
  // A receiver numbers what it stores itself: one position per line, in arrival order.
  let arrival = 0;
  for await (const batch of readFileEventLog(CORPUS)) {
    for (const record of batch) {
      verdicts.set(record.line, verdictOf(projector, record));
      const outOfOrder =
        record.kind === 'bad-line' && record.reason.startsWith('envelope position');
      const { line } = record;
      arrival += 1;
      const asDelivered: LogRecord = outOfOrder
        ? {
            kind: 'entry',
            position: arrival,
            line,
            receivedAt: undefined,
            deliveryId: undefined,
            event: (JSON.parse(lines[line - 1]?.toString('utf8') ?? '') as { event: unknown })
              .event,
            raw: '',
          }
        : { ...record, position: arrival };
      deliveredVerdicts.set(line, verdictOf(delivered, asDelivered));
    }
  }
  return { projector, verdicts, delivered, deliveredVerdicts };
};

let reference: Awaited<ReturnType<typeof referenceFold>>;
const lines = corpusLineBytes(readFileSync(CORPUS));

beforeAll(async () => {
  reference = await referenceFold();
});
afterAll(removeTempDirs);

const expectCleanLifecycle = (projector: Projector): void => {
  expect(projector.getSignRequest(signRequestId(5001))?.status).toBe('completed');
  expect(projector.getParticipant(signRequestId(5001), participantId(3))?.status).toBe('signed');
};

describe('the hostile corpus, read from the file', () => {
  it('gives every line that is not blank by JSON rule a verdict, and keeps 5001 whole', () => {
    const unseen = lines
      .map((line, index) => ({ line, number: index + 1 }))
      .filter(({ line, number }) => !isJsonBlank(line) && !reference.verdicts.has(number));
    expect(unseen.map(({ number }) => number)).toEqual([]);
    expectCleanLifecycle(reference.projector);
  });

  it('replay --json has the reference state, quarantine and counters; replay prints no control characters', async () => {
    const json = await runCli(['replay', CORPUS, '--json']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as {
      quarantine: { line: number; reason: { kind: string } }[];
      stats: Record<string, number>;
      signRequests: { id: number; status: string }[];
    };
    expect(report.stats).toEqual(reference.projector.stats());
    const quarantined = [...reference.verdicts].filter(([, v]) => v !== 'applied' && v !== 'no-op');
    expect(report.quarantine.map((q) => q.line)).toEqual(quarantined.map(([line]) => line));
    expect(report.signRequests.find((r) => r.id === 5001)?.status).toBe('completed');
    const text = await runCli(['replay', CORPUS]);
    expect(text.code).toBe(0);
    expect(text.stdout + text.stderr).not.toMatch(FORBIDDEN);
  });

  it('check names exactly the quarantined lines, with no control characters', async () => {
    const run = await runCli(['check', CORPUS]);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).not.toMatch(FORBIDDEN);
    const named = [...run.stdout.matchAll(/^.*hostile\.ndjson:(\d+): /gmu)].map((m) =>
      Number(m[1]),
    );
    const quarantined = [...reference.verdicts].filter(([, v]) => v !== 'applied' && v !== 'no-op');
    expect(named).toEqual(quarantined.map(([line]) => line));
  });

  it('inspect shows 5001 completed, with no control characters', async () => {
    const run = await runCli(['inspect', CORPUS, '--sign-request', '5001']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/completed/);
    expect(run.stdout + run.stderr).not.toMatch(FORBIDDEN);
  });

  it('report writes a page with no markup or control characters from the data', async () => {
    const out = join(await tempDir(), 'report.html');
    const run = await runCli(['report', CORPUS, '--out', out]);
    expect(run.code).toBe(0);
    const page = await readFile(out, 'utf8');
    expect(page).not.toContain('<script>alert(1)');
    expect(page).not.toContain('<img src=x');
    expect(page).not.toMatch(FORBIDDEN);
  });
});

/** How a line is delivered over HTTP: an envelope's event with its delivery id, anything else as it is. */
const delivery = (line: Buffer): { body: Uint8Array; deliveryId?: string } => {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(line));
  } catch {
    return { body: line };
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { position, event, deliveryId } = value as Record<string, unknown>;
    if (typeof position === 'number' && 'event' in value) {
      const body = new TextEncoder().encode(JSON.stringify(event));
      return typeof deliveryId === 'string' ? { body, deliveryId } : { body };
    }
  }
  return { body: line };
};

const post = async (url: string, line: Buffer) => {
  const { body, deliveryId } = delivery(line);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (deliveryId !== undefined) headers['x-delivery-id'] = deliveryId;
  const response = await fetch(url, { method: 'POST', body, headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** The lines to send: not blank by JSON rule (a blank line has no verdict to compare). */
const sendable = () =>
  lines
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => !isJsonBlank(line));

interface Recipe {
  startServer(
    options: Record<string, unknown>,
  ): Promise<{ url: string; projector?: Projector; close(): Promise<void> }>;
}
const recipe = async (file: string): Promise<Recipe> =>
  (await import(pathToFileURL(join(ROOT, 'examples', file)).href)) as Recipe;

describe('the hostile corpus, delivered line by line to examples/webhook-server.js', () => {
  it('answers each line with the reference verdict and ends in the reference state', async () => {
    const { startServer } = await recipe('webhook-server.js');
    // Unsigned deliveries: this is about bodies (signatures: test/webhooks/).
    const server = await startServer({
      logPath: join(await tempDir(), 'events.ndjson'),
      port: 0,
      insecureNoSignature: true,
    });
    try {
      for (const { line, number } of sendable()) {
        const answer = await post(server.url, line);
        const verdict = reference.deliveredVerdicts.get(number);
        if (verdict === 'bad-line') expect(answer.status, `line ${number}`).toBe(400);
        else {
          expect(answer.status, `line ${number}`).toBe(200);
          const outcome = answer.body.duplicate === true ? 'no-op' : answer.body.outcome;
          const expected = verdict === 'applied' || verdict === 'no-op' ? verdict : 'quarantined';
          expect(outcome, `line ${number}`).toBe(expected);
        }
      }
      const projector = server.projector as Projector;
      // Delivered over HTTP, the events carry the receiver's arrival times: only those may differ.
      expect(untimedRecords(sortedRecords(projector.state()))).toEqual(
        untimedRecords(sortedRecords(reference.delivered.state())),
      );
      expect(projector.quarantine().map((q) => q.reason.kind)).toEqual(
        reference.delivered
          .quarantine()
          .filter((q) => q.reason.kind !== 'bad-line')
          .map((q) => q.reason.kind),
      );
      expectCleanLifecycle(projector);
    } finally {
      await server.close();
    }
  });
});

describe('the hostile corpus, delivered line by line to examples/webhook-server-pg.js', () => {
  const db = throwawayPostgres(4);

  it('stores what is JSON, refuses the rest, and pg work ends in the reference state', async () => {
    const schema = 'hostile';
    (await migrate(db.pool, { schema }))._unsafeUnwrap();
    const { startServer } = await recipe('webhook-server-pg.js');
    const receiver = await startServer({
      databaseUrl: db.server.url,
      schema,
      port: 0,
      insecureNoSignature: true,
    });
    try {
      for (const { line, number } of sendable()) {
        const answer = await post(receiver.url, line);
        const verdict = reference.deliveredVerdicts.get(number);
        expect(answer.status, `line ${number}`).toBe(verdict === 'bad-line' ? 400 : 200);
      }
    } finally {
      await receiver.close();
    }
    const work = await runCli([
      'pg',
      'work',
      '--drain',
      '--database',
      db.server.url,
      '--schema',
      schema,
    ]);
    expect(work.stderr).toBe('');
    expect(work.code).toBe(0);
    await expectEqualsSequentialFold(db.pool, schema);
    const inspected = await runCli([
      'inspect',
      '--database',
      db.server.url,
      '--schema',
      schema,
      '--sign-request',
      '5001',
    ]);
    expect(inspected.code).toBe(0);
    expect(inspected.stdout).toMatch(/status\s+completed/);
  });
});
