/**
 * A strict TypeScript consumer with nothing but `typescript` installed (no
 * `@types/node`) compiles against every entry point's declarations: Node's
 * types stay inside signfold. Checked with the package as packed, in a scratch
 * application outside the repository (so no `@types` folder is in reach).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageCode } from './fixtures/readme-snippets.js';
import { exec, installApp, packBuilt, removeScratch } from './fixtures/scratch-app.js';

/** Uses something of every entry point, so that every declaration file they reach is checked. */
const CONSUMER = `
import type { Result } from 'neverthrow';
import { createProjector, type FetchSignRequest, type SignEvent, type DecodeError } from 'signfold';
import { decodeEventJson, fold, initialState, getSignRequest } from 'signfold/core';
import { createMemoryEventLog } from 'signfold/file';
import { defineReactor } from 'signfold/reactors';
import { defineUpcaster } from 'signfold/upcasters';
import { events, given } from 'signfold/testing';
import { openPostgresEventLog } from 'signfold/postgres';
import { createWebhookHandler, handleNodeRequest, type WebhookResponse } from 'signfold/webhooks';
import { createOtelTracing, type Tracing } from 'signfold/otel';
import { createHealthHandler, createReadHandler, nodeListener, type FetchHandler, type ReadHandler } from 'signfold/http';

const decoded: Result<SignEvent, DecodeError> = decodeEventJson('{"type":"template-deleted"}');
const { state } = fold(initialState(), [events.signRequestSent({ signRequestId: 42 })]);
export const status: string | undefined = getSignRequest(state, 42)?.status;
export const ok: boolean = decoded.isOk();
export const engine = [createProjector, createMemoryEventLog, openPostgresEventLog, given, defineReactor, defineUpcaster] as const;
const handler = createWebhookHandler({ log: createMemoryEventLog(), secrets: ['k'] });
export const answer: Promise<WebhookResponse> = handler({ method: 'POST', headers: {}, body: new Uint8Array(0) });
export const glue = handleNodeRequest;
// The fetch shape names Request and Response through globalThis: it compiles without the DOM library.
export const fetchers: readonly FetchHandler[] = [handler, createHealthHandler()];
export const reads: (options: { log: string; tokens: { token: string; companies: number[] }[] }) => ReadHandler = createReadHandler;
export const listener = nodeListener(handler, { maxBodyBytes: 1024 });
// The reconcile fetch's signal is the runtime's AbortSignal where one is declared, else its aborted and reason.
export const fetchOne: FetchSignRequest = async (id, { signal }) => (signal.aborted ? String(signal.reason) : { id });
// Its declarations name no @opentelemetry type: they compile without the optional peer installed.
export const traced: (options?: { tracerProvider?: { getTracer(name: string): unknown } }) => Tracing = createOtelTracing;
`;

/** The compiler command of the issue: strict, Node's module resolution, everything else default. */
const TSC = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext'];

let app: string;

beforeAll(async () => {
  app = await installApp((await packBuilt()).tarball, ['typescript']);
  await writeFile(join(app, 'main.ts'), CONSUMER);
  await writeFile(join(app, 'usage.ts'), usageCode());
});
afterAll(removeScratch);

const tsc = (args: readonly string[]) =>
  exec(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), ...args], app).then(
    () => '',
    (error: Error) => error.message,
  );

/** The lines of tsc's output that are about `file`. */
const diagnosticsOf = (output: string, file: string): string[] =>
  output.split('\n').filter((line) => line.startsWith(`${file}(`));

/** The consumer and the README example in one program (one compile, the slow part): tsc's output. */
let bothCompiled: Promise<string>;
beforeAll(() => {
  bothCompiled = tsc([...TSC, 'main.ts', 'usage.ts']);
});

describe('a strict TypeScript consumer without @types/node', () => {
  it('has only typescript and signfold with its dependencies installed', () => {
    expect(existsSync(join(app, 'node_modules/typescript'))).toBe(true);
    expect(existsSync(join(app, 'node_modules/@types'))).toBe(false);
  });

  it('compiles against every entry point', async () => {
    const output = await bothCompiled;
    expect(diagnosticsOf(output, 'main.ts')).toEqual([]);
    // Nor any error of the program as a whole (a missing declaration file, an option).
    const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(errors.filter((line) => !line.startsWith('usage.ts('))).toEqual([]);
  });

  it('compiles with the standard library alone (no DOM), as in an edge function', async () => {
    expect(await tsc([...TSC, '--lib', 'es2023', 'main.ts'])).toBe('');
  });

  it('compiles the README example', async () => {
    expect(diagnosticsOf(await bothCompiled, 'usage.ts')).toEqual([]);
  });
});
