/**
 * The names each public entry point exports, values and types apart, held
 * against `test/package/fixtures/public-api.json`. Moving a file must never
 * add, drop or rename an export of `signfold`, `signfold/core`,
 * its subpaths; a change of the public face is a deliberate edit of that
 * file, seen in review. Regenerate it with
 * `SIGNFOLD_PIN_API=1 npx vitest run test/package/public-api.test.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
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

/** One compile of every entry point for the whole file (seconds of CPU each). */
let compiled: Map<string, string[]> | undefined;
const exportsOfEntries = (entries: Map<string, string>): Map<string, string[]> => {
  compiled ??= exportsOf([...entries.values()]);
  return compiled;
};

describe('the public face', () => {
  it('every entry point exports exactly the names it exported before', () => {
    const entries = entryPoints();
    expect([...entries.keys()].sort()).toEqual([
      'signfold',
      'signfold/core',
      'signfold/emulator',
      'signfold/file',
      'signfold/http',
      'signfold/otel',
      'signfold/postgres',
      'signfold/reactors',
      'signfold/testing',
      'signfold/upcasters',
      'signfold/webhooks',
    ]);
    const names = exportsOfEntries(entries);
    const actual = Object.fromEntries(
      [...entries].map(([entry, file]) => [entry, names.get(file) ?? []]),
    );
    const pinned = resolve(import.meta.dirname, 'fixtures/public-api.json');
    if (process.env.SIGNFOLD_PIN_API === '1') {
      writeFileSync(pinned, `${JSON.stringify(actual, null, 2)}\n`);
    }
    const expected = JSON.parse(readFileSync(pinned, 'utf8')) as Record<string, string[]>;
    for (const entry of Object.keys(expected)) {
      expect(actual[entry], entry).toEqual(expected[entry]);
    }
    expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  });

  it('signfold exports at most 130 names, and exactly signfold/core plus the engine', () => {
    const entries = entryPoints();
    const names = exportsOfEntries(entries);
    const of = (entry: string): string[] => names.get(entries.get(entry) ?? '') ?? [];
    const main = of('signfold');
    expect(main.length).toBeLessThanOrEqual(130);
    const core = of('signfold/core');
    expect(core.length).toBeGreaterThan(50);
    expect(core.filter((name) => !main.includes(name))).toEqual([]);
    expect(main).toContain('value createProjector');
  });

  it('no name is exported by two entry points but signfold/core and signfold', () => {
    const entries = entryPoints();
    const names = exportsOfEntries(entries);
    const homes = new Map<string, string[]>();
    for (const [entry, file] of entries) {
      if (entry === 'signfold/core') continue;
      for (const name of names.get(file) ?? [])
        homes.set(name, [...(homes.get(name) ?? []), entry]);
    }
    const twice = [...homes]
      .filter(([, where]) => where.length > 1)
      .map(([name, where]) => `${name}: ${where.join(', ')}`);
    expect(twice).toEqual([]);
  });
});
