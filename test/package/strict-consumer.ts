/**
 * A strict TypeScript consumer with nothing but `typescript` installed (no
 * `@types/node`) compiles against every entry point's declarations: Node's
 * types stay inside signfold. Checked with the package as packed, in a scratch
 * application outside the repository (so no `@types` folder is in reach). Run by packed.test.ts.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PackedApp } from './fixtures/packed-app.js';
import { usageCode } from './fixtures/readme-snippets.js';

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

/** The application the package is installed in (set by the tests' `beforeAll`). */
let app: string;

type TypeScript = typeof import('typescript');
/** The application's own TypeScript, loaded into this worker once. */
let appTs: TypeScript | undefined;
/** Declaration files parsed once for both compiles (they do not change: see `lasting`). */
const parsed = new Map<string, import('typescript').SourceFile>();
const lasting = (file: string): boolean =>
  file.endsWith('.d.ts') && file.startsWith(join(app, 'node_modules'));

/**
 * What `tsc ARGS`, run in the application with its installed TypeScript, prints: the same
 * command line parsed the same way, compiled by that compiler's API here rather than in a
 * process of its own (which loads the compiler afresh and parses every declaration file again).
 */
const tsc = (args: readonly string[]): string => {
  appTs ??= createRequire(join(app, 'package.json'))('typescript') as TypeScript;
  const ts = appTs;
  const { options, fileNames, errors } = ts.parseCommandLine([...args]);
  const host = ts.createCompilerHost(options);
  host.getCurrentDirectory = () => app;
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError, fresh) => {
    const path = resolve(app, file);
    if (!lasting(path)) return read(path, language, onError, fresh);
    let source = parsed.get(path);
    if (source === undefined) {
      source = read(path, language, onError, fresh);
      if (source !== undefined) parsed.set(path, source);
    }
    return source;
  };
  const program = ts.createProgram(
    fileNames.map((file) => resolve(app, file)),
    options,
    host,
  );
  return ts.formatDiagnostics([...errors, ...ts.getPreEmitDiagnostics(program)], {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => app,
    getNewLine: () => '\n',
  });
};

/** The lines of tsc's output that are about `file`. */
const diagnosticsOf = (output: string, file: string): string[] =>
  output.split('\n').filter((line) => line.startsWith(`${file}(`));

/** The consumer and the README example in one program (one compile, the slow part): tsc's output. */
let bothCompiled: string;

/** The tests of a strict TypeScript consumer of the installed package. */
export const describeStrictConsumer = (packedApp: () => PackedApp): void => {
  describe('a strict TypeScript consumer without @types/node', () => {
    beforeAll(async () => {
      app = packedApp().app;
      await writeFile(join(app, 'main.ts'), CONSUMER);
      await writeFile(join(app, 'usage.ts'), usageCode());
      bothCompiled = tsc([...TSC, 'main.ts', 'usage.ts']);
    });

    it('has only typescript and signfold with its dependencies installed', () => {
      expect(existsSync(join(app, 'node_modules/typescript'))).toBe(true);
      expect(existsSync(join(app, 'node_modules/@types'))).toBe(false);
    });

    it('compiles against every entry point', async () => {
      const output = bothCompiled;
      expect(diagnosticsOf(output, 'main.ts')).toEqual([]);
      // Nor any error of the program as a whole (a missing declaration file, an option).
      const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
      expect(errors.filter((line) => !line.startsWith('usage.ts('))).toEqual([]);
    });

    it('compiles with the standard library alone (no DOM), as in an edge function', async () => {
      expect(tsc([...TSC, '--lib', 'es2023', 'main.ts'])).toBe('');
    });

    it("reports a consumer's type errors, and knows no Node globals (the check can fail)", async () => {
      await writeFile(
        join(app, 'wrong.ts'),
        "import { getSignRequest } from 'signfold/core';\nexport const n: number = getSignRequest;\nexport const argv = process.argv;\n",
      );
      const codes = diagnosticsOf(tsc([...TSC, 'wrong.ts']), 'wrong.ts').map(
        (line) => /error (TS\d+)/.exec(line)?.[1],
      );
      // Not assignable; `process` unknown without @types/node.
      expect(codes).toEqual(['TS2322', 'TS2591']);
    });

    it('compiles the README example', async () => {
      expect(diagnosticsOf(bothCompiled, 'usage.ts')).toEqual([]);
    });
  });
};
