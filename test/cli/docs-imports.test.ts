import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './cli-helpers.js';

/**
 * What each entry point exports, as the public-API test pins it from the sources
 * (`value name` or `type name`), so a new entry point needs no edit here.
 */
const PINNED = JSON.parse(
  await readFile(join(ROOT, 'test/package/fixtures/public-api.json'), 'utf8'),
) as Record<string, string[]>;

/** The built files the repository's examples import (`../dist/store/index.js`), by entry point. */
const BUILT = new Map(
  Object.entries(
    (
      JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
        exports: Record<string, { import: string } | string>;
      }
    ).exports,
  ).flatMap(([subpath, target]) =>
    typeof target === 'string'
      ? []
      : [
          [
            target.import.replace(/^\.\//, '../'),
            subpath === '.' ? 'signfold' : `signfold/${subpath.slice(2)}`,
          ],
        ],
  ),
);

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

  it.each(DOCS)('docs/%s', async (file) => {
    for (const { from, names } of importsOf(await readFile(join(ROOT, 'docs', file), 'utf8'))) {
      if (from.startsWith('node:') || THIRD_PARTY.has(from)) continue;
      const pinned = PINNED[BUILT.get(from) ?? from];
      expect(pinned, `${file} imports from '${from}'`).toBeDefined();
      const exported = new Set(pinned ?? []);
      for (const name of names) {
        const typeName = /^type\s+(\w+)$/.exec(name)?.[1];
        if (typeName === undefined) {
          expect(exported, `${file} imports ${name}, which ${from} does not export`).toContain(
            `value ${name}`,
          );
        } else {
          const either = exported.has(`type ${typeName}`) || exported.has(`value ${typeName}`);
          expect(either, `${file} imports type ${typeName}, which ${from} does not export`).toBe(
            true,
          );
        }
      }
    }
  });
});
