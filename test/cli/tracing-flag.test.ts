/**
 * `--tracing MODULE` as the CLI runs it: `react` with a module that gives
 * the real SDK's provider (in-memory exporter, written out at shutdown) sends
 * each record's projection and each effect attempt, in the trace of its
 * delivery id; without the flag, a command runs to its end with every import
 * of an `@opentelemetry` package made to fail (and the flag then fails, which
 * shows the guard bites; `NODE_OPTIONS` takes a process of its own).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { deliveryTrace } from '../../src/otel/delivery-trace.js';
import { sentEvent } from '../otel/trace-spans.js';
import { ROOT, removeTempDirs, runCli, tempDir, writeFixture } from './cli-helpers.js';

afterAll(removeTempDirs);

const PROVIDER = join(ROOT, 'test/fixtures/tracing/in-memory-provider.mjs');
const FORBID = pathToFileURL(join(ROOT, 'test/fixtures/tracing/forbid-otel.mjs')).href;
const EVERY = join(ROOT, 'test/fixtures/reactors/every-event.mjs');

interface SpanRecord {
  readonly name: string;
  readonly traceId: string;
  readonly parentSpanId?: string;
  readonly attributes: Record<string, unknown>;
}

/** A log of two deliveries with ids, written as the log writes them. */
const twoDeliveries = () =>
  writeFixture('events.ndjson', [
    `{"position":1,"receivedAt":"2026-01-01T00:00:00.000Z","deliveryId":"cli-1","event":${sentEvent(1)}}`,
    `{"position":2,"receivedAt":"2026-01-01T00:00:01.000Z","deliveryId":"cli-2","event":${sentEvent(2)}}`,
  ]);

describe('--tracing MODULE', () => {
  it('react sends the projection and the effect attempt of each delivery to its trace', async () => {
    const log = await twoDeliveries();
    const spansFile = join(await tempDir(), 'spans.json');
    const run = await runCli(
      ['react', log, '--reactors', EVERY, '--drain', '--tracing', PROVIDER],
      ROOT,
      { ...process.env, SPANS_FILE: spansFile },
    );
    expect(run.code, run.stderr).toBe(0);
    const spans = JSON.parse(await readFile(spansFile, 'utf8')) as SpanRecord[];
    for (const [id, position] of [
      ['cli-1', 1],
      ['cli-2', 2],
    ] as const) {
      const { traceId, spanId } = deliveryTrace(id);
      const mine = spans.filter((span) => span.traceId === traceId);
      expect(mine.map((span) => span.name).sort()).toEqual([
        'signfold.effect.attempt',
        'signfold.project',
      ]);
      for (const span of mine) {
        expect(span.parentSpanId).toBe(spanId);
        expect(span.attributes).toMatchObject({
          'signfold.delivery.id': id,
          'signfold.log.position': position,
          'signfold.sign_request.id': position,
        });
      }
    }
  });

  it('without it, no command imports @opentelemetry: the guard that proves it fails the flag', async () => {
    const log = await twoDeliveries();
    const env = { ...process.env, NODE_OPTIONS: `--import=${FORBID}` };
    const replay = await runCli(['replay', log], ROOT, env);
    expect(replay.code, replay.stderr).toBe(0);
    const react = await runCli(['react', log, '--reactors', EVERY, '--drain'], ROOT, env);
    expect(react.code, react.stderr).toBe(0);
    const traced = await runCli(
      ['react', log, '--reactors', EVERY, '--drain', '--tracing', PROVIDER],
      ROOT,
      env,
    );
    expect(traced.code).toBe(2);
    expect(traced.stderr).toContain('forbidden import of @opentelemetry/');
  });
});
