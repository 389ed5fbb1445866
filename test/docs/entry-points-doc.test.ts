/**
 * Every entry point of package.json's `exports` has its row in the entry-point
 * tables of README.md and docs/README.md, and is named in docs/README.md's
 * API-reference sentence, as typedoc.json documents it (docs/README.md once
 * left out `signfold/webhooks`).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const manifest = JSON.parse(read('package.json')) as {
  name: string;
  exports: Record<string, unknown>;
};
const typedoc = JSON.parse(read('typedoc.json')) as { entryPoints: string[] };

/** `signfold`, `signfold/core`, …: every export but `./package.json`. */
const entryPoints = Object.keys(manifest.exports)
  .filter((key) => key !== './package.json')
  .map((key) => (key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`));

/** The import names in the first column of the table whose header starts with `| import`. */
const tableImports = (markdown: string): string[] => {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^\| import\s/.test(line));
  const names: string[] = [];
  for (const line of lines.slice(start + 2)) {
    const name = /^\| `([^`]+)`/.exec(line)?.[1];
    if (name === undefined) break;
    names.push(name);
  }
  return names;
};

describe('the entry points in the docs', () => {
  it('reads seven entry points from package.json, each documented by typedoc', () => {
    expect(entryPoints).toHaveLength(7);
    expect(typedoc.entryPoints).toHaveLength(entryPoints.length);
  });

  for (const doc of ['README.md', 'docs/README.md']) {
    it(`${doc}: the entry-point table has one row for each, in the order of exports`, () => {
      expect(tableImports(read(doc))).toEqual(entryPoints);
    });
  }

  it("docs/README.md: the API reference's sentence names each", () => {
    const docs = read('docs/README.md');
    const section = docs.slice(docs.indexOf('## API reference'));
    const sentence = section.slice(0, section.indexOf(' from their'));
    for (const name of entryPoints) expect(sentence, name).toContain(`\`${name}\``);
  });
});
