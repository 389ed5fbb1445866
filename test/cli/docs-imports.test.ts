import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as core from '../../src/core/index.js';
import * as emulator from '../../src/emulator/index.js';
import * as api from '../../src/index.js';
import * as otel from '../../src/otel/index.js';
import * as postgresAdapter from '../../src/postgres/index.js';
import * as testingKit from '../../src/testing/index.js';
import * as webhooks from '../../src/webhooks/index.js';
import { ROOT } from './cli-helpers.js';

/**
 * What users may import from: the package's entry points, or (in the examples) the built main
 * entry point; each with its module and the source file whose `export type` lists its types.
 */
const ENTRY_POINTS = new Map<string, { module: object; source: string }>([
  ['signfold', { module: api, source: 'src/index.ts' }],
  ['../dist/index.js', { module: api, source: 'src/index.ts' }],
  ['signfold/core', { module: core, source: 'src/core/index.ts' }],
  ['signfold/testing', { module: testingKit, source: 'src/testing/index.ts' }],
  ['signfold/postgres', { module: postgresAdapter, source: 'src/postgres/index.ts' }],
  ['signfold/webhooks', { module: webhooks, source: 'src/webhooks/index.ts' }],
  ['signfold/otel', { module: otel, source: 'src/otel/index.ts' }],
  ['signfold/emulator', { module: emulator, source: 'src/emulator/index.ts' }],
]);

/**
 * Other packages a documented snippet may use: the test runner of docs/testing.md, the web
 * frameworks docs/webhooks.md shows the handler under, the Standard Webhooks sender it signs with,
 * and the OpenTelemetry API, SDK and OTLP exporter that the docs set a tracer provider up with.
 */
const THIRD_PARTY = new Set([
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-http',
  'vitest',
  'standardwebhooks',
  'express',
  'fastify',
  'hono',
  'hono/body-limit',
  '@hono/node-server',
]);

/** The `import … from '…'` statements of the ```ts / ```js blocks of a Markdown file. */
const importsOf = (markdown: string): { names: string[]; from: string }[] => {
  const blocks = [...markdown.matchAll(/```(?:ts|js|typescript|javascript)\n([\s\S]*?)```/g)];
  return blocks.flatMap(([, code = '']) =>
    [...code.matchAll(/^import\s+(type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/gm)].map(
      ([, typeOnly, list = '', from = '']) => ({
        from,
        names: list
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== '')
          .map((name) => (typeOnly === undefined ? name : `type ${name}`)),
      }),
    ),
  );
};

/**
 * Type names an entry point's source exports (`export type { A, B as C }`),
 * following its `export * from './x.js'` re-exports (the domain, listed once).
 */
const exportedTypes = async (source: string): Promise<Set<string>> => {
  const index = await readFile(join(ROOT, source), 'utf8');
  const names = [...index.matchAll(/export type \{([^}]*)\}/g)].flatMap(([, list = '']) =>
    list.split(',').map(
      (entry) =>
        entry
          .trim()
          .split(/\s+as\s+/)
          .pop() ?? '',
    ),
  );
  const found = new Set(names.filter((name) => name !== ''));
  for (const [, from = ''] of index.matchAll(/^export \* from '([^']+)';/gm)) {
    const target = join(dirname(source), from).replace(/\.js$/, '.ts');
    for (const name of await exportedTypes(target)) found.add(name);
  }
  return found;
};

const DOCS = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md'));

describe('code in the documentation imports the public API only', () => {
  it('finds the imports it checks', async () => {
    const signRequest = importsOf(await readFile(join(ROOT, 'docs/sign-request.md'), 'utf8'));
    expect(signRequest).toEqual([
      {
        from: 'signfold',
        names: ['decodeSignRequest', 'encodeSignRequest', 'signRequestJsonSchema'],
      },
    ]);
  });

  it('knows the types of the testing entry point', async () => {
    expect(await exportedTypes('src/testing/index.ts')).toContain('EventOverrides');
  });

  it.each(DOCS)('docs/%s', async (file) => {
    for (const { from, names } of importsOf(await readFile(join(ROOT, 'docs', file), 'utf8'))) {
      if (from.startsWith('node:') || THIRD_PARTY.has(from)) continue;
      const entry = ENTRY_POINTS.get(from);
      expect(entry, `${file} imports from '${from}'`).toBeDefined();
      if (entry === undefined) continue;
      const types = await exportedTypes(entry.source);
      const values = new Set(Object.keys(entry.module));
      for (const name of names) {
        const typeName = /^type\s+(\w+)$/.exec(name)?.[1];
        if (typeName === undefined) {
          expect(values, `${file} imports ${name}, which ${from} does not export`).toContain(name);
        } else {
          expect(types, `${file} imports type ${typeName}, not exported`).toContain(typeName);
        }
      }
    }
  });
});
