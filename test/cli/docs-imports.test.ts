import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';
import { ROOT } from './cli-helpers.js';

/** What users may import from: the package, or (in the examples) its built entry point. */
const ENTRY_POINTS = new Set(['signfold', '../dist/index.js']);

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

/** Type names `src/index.ts` exports (`export type { A, B as C }`). */
const exportedTypes = async (): Promise<Set<string>> => {
  const index = await readFile(join(ROOT, 'src/index.ts'), 'utf8');
  const names = [...index.matchAll(/export type \{([^}]*)\}/g)].flatMap(([, list = '']) =>
    list.split(',').map(
      (entry) =>
        entry
          .trim()
          .split(/\s+as\s+/)
          .pop() ?? '',
    ),
  );
  return new Set(names.filter((name) => name !== ''));
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
    const types = await exportedTypes();
    const values = new Set(Object.keys(api));
    for (const { from, names } of importsOf(await readFile(join(ROOT, 'docs', file), 'utf8'))) {
      if (from.startsWith('node:')) continue;
      expect(ENTRY_POINTS, `${file} imports from '${from}'`).toContain(from);
      for (const name of names) {
        const typeName = /^type\s+(\w+)$/.exec(name)?.[1];
        if (typeName === undefined) {
          expect(values, `${file} imports ${name}, which signfold does not export`).toContain(name);
        } else {
          expect(types, `${file} imports type ${typeName}, not exported`).toContain(typeName);
        }
      }
    }
  });
});
