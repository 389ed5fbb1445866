/**
 * The hostile corpus (see its README) through `signfold serve --scheme standard-webhooks` on a file
 * log, every line signed properly (HMAC-SHA256 over `{id}.{timestamp}.{raw body bytes}`, by an
 * independent signer: bench/serve-signature.js): the same answers and verdicts as under the hmac
 * scheme (serve-proof-hostile.test.ts), that is `replay`'s verdicts of the corpus line for line.
 * webhook-id is required under this scheme: a line delivered without a delivery id gets one of its
 * own (`hostile-line-N`), so it is stored once, as it is under hmac without one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from '../../bench/serve-process.js';
import { standardWebhookHeaders } from '../../bench/serve-signature.js';
import { participantId, signRequestId } from '../../src/core/ids.js';
import { createProjector } from '../../src/engine/projector.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { HOSTILE_CORPUS } from '../support/hostile-corpus.js';
import {
  deliveredReference,
  hostileDeliveries,
  type Verdict,
  verdictOf,
} from '../support/hostile-deliveries.js';
import { sortedRecords, untimedRecords } from '../support/projection-records.js';

const CORPUS = readFileSync(HOSTILE_CORPUS);
const SECRET = `whsec_${Buffer.from('hostile corpus standard webhooks key').toString('base64')}`;

afterAll(removeTempDirs);

interface Answer {
  readonly line: number;
  readonly status: number;
  readonly position?: number;
  readonly duplicate?: boolean;
}

describe('the hostile corpus under --scheme standard-webhooks', () => {
  it('answers and verdicts equal replay of the corpus, line for line', async () => {
    const dir = await tempDir();
    const reference = await deliveredReference(CORPUS, dir);
    const path = join(dir, 'served.ndjson');
    const serve = await startServe(['--log', path, '--scheme', 'standard-webhooks'], {
      env: { ...process.env, SIGNFOLD_WEBHOOK_SECRET: SECRET },
    });
    const answers: Answer[] = [];
    try {
      for (const { line, body, deliveryId } of hostileDeliveries(CORPUS)) {
        const id = deliveryId ?? `hostile-line-${line}`;
        const headers = standardWebhookHeaders(body, { secret: SECRET, id });
        const response = await fetch(serve.url, { method: 'POST', body, headers });
        const answer = (await response.json()) as { position?: number; duplicate?: boolean };
        answers.push({ line, status: response.status, ...answer });
      }
    } finally {
      expect((await serve.stop('SIGTERM')).code).toBe(0);
    }
    expect(answers.filter((a) => a.status >= 500 || a.status === 401)).toEqual([]);
    for (const answer of answers) {
      const expected = reference.redeliveries.has(answer.line)
        ? { status: 200, duplicate: true }
        : reference.verdicts.get(answer.line) === 'bad-line'
          ? { status: 400 }
          : { status: 200, duplicate: false };
      expect(answer, `line ${answer.line}`).toMatchObject(expected);
    }
    const lineOf = new Map(
      answers.flatMap((a) =>
        a.status === 200 && a.duplicate === false && a.position !== undefined
          ? [[a.position, a.line]]
          : [],
      ),
    );
    const projector = createProjector();
    const verdicts = new Map<number, Verdict>();
    for await (const batch of readFileEventLog(path)) {
      for (const record of batch) {
        verdicts.set(lineOf.get(record.position) ?? -record.position, verdictOf(projector, record));
      }
    }
    const expectedVerdicts = new Map(
      [...reference.verdicts].filter(
        ([line, verdict]) => verdict !== 'bad-line' || reference.redeliveries.has(line),
      ),
    );
    expect(verdicts).toEqual(expectedVerdicts);
    expect(untimedRecords(sortedRecords(projector.state()))).toEqual(
      untimedRecords(sortedRecords(reference.projector.state())),
    );
    const state = projector.state();
    expect(state.signRequests.get(signRequestId(5001))?.status).toBe('completed');
    expect(state.participants.get(signRequestId(5001))?.get(participantId(3))?.status).toBe(
      'signed',
    );
    const json = await runCli(['replay', path, '--json']);
    const report = JSON.parse(json.stdout) as {
      quarantine: { line: number; reason: { kind: string } }[];
    };
    expect(report.quarantine.map((q) => [q.line, q.reason.kind])).toEqual(
      projector.quarantine().map((q) => [q.line, q.reason.kind]),
    );
  });
});
