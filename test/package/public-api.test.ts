/**
 * The names each public entry point exports, values and types apart, held
 * against `test/package/fixtures/public-api.json`. Moving a file must never
 * add, drop or rename an export of `signfold`, `signfold/core`,
 * `signfold/testing`, `signfold/postgres` or `signfold/webhooks`; a change of
 * the public face is a deliberate edit of that file, seen in review.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

interface ExportTarget {
  readonly types: string;
}

/** The source file of each entry point, read from package.json's `exports` (dist/X.d.ts is src/X.ts). */
const entryPoints = (): Map<string, string> => {
  const manifest = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, ExportTarget | string>;
  };
  const entries = new Map<string, string>();
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'string') continue;
    const source = target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts');
    entries.set(subpath === '.' ? 'signfold' : `signfold/${subpath.slice(2)}`, source);
  }
  return entries;
};

/** Every name a module exports, as `value name` or `type name`, sorted. */
const exportsOf = (files: readonly string[]): Map<string, string[]> => {
  const program = ts.createProgram(
    files.map((file) => resolve(ROOT, file)),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    },
  );
  const checker = program.getTypeChecker();
  const found = new Map<string, string[]>();
  for (const file of files) {
    const source = program.getSourceFile(resolve(ROOT, file));
    const module = source && checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${file} is not a module`);
    const names = checker.getExportsOfModule(module).map((symbol) => {
      const target =
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return `${target.flags & ts.SymbolFlags.Value ? 'value' : 'type'} ${symbol.name}`;
    });
    found.set(file, names.sort());
  }
  return found;
};

describe('the public face', () => {
  it('every entry point exports exactly the names it exported before', () => {
    const entries = entryPoints();
    expect([...entries.keys()].sort()).toEqual([
      'signfold',
      'signfold/core',
      'signfold/emulator',
      'signfold/otel',
      'signfold/postgres',
      'signfold/testing',
      'signfold/webhooks',
    ]);
    const names = exportsOf([...entries.values()]);
    const actual = Object.fromEntries(
      [...entries].map(([entry, file]) => [entry, names.get(file) ?? []]),
    );
    const expected = JSON.parse(
      readFileSync(resolve(import.meta.dirname, 'fixtures/public-api.json'), 'utf8'),
    ) as Record<string, string[]>;
    for (const entry of Object.keys(expected)) {
      expect(actual[entry], entry).toEqual(expected[entry]);
    }
    expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  });

  it('signfold exports all of signfold/core but the event builders, which signfold/testing exports', () => {
    const entries = entryPoints();
    const names = exportsOf([...entries.values()]);
    const of = (entry: string): string[] => names.get(entries.get(entry) ?? '') ?? [];
    const main = new Set(of('signfold'));
    const testing = new Set(of('signfold/testing'));
    const core = of('signfold/core');
    expect(core.length).toBeGreaterThan(50);
    const onlyInCore = core.filter((name) => !main.has(name));
    expect(onlyInCore).toContain('value events');
    expect(onlyInCore.filter((name) => !testing.has(name))).toEqual([]);
  });
});
