/**
 * The folders show the data flow, and the imports must follow it: the pure
 * core imports no I/O, the engine only the core, adapters never each other,
 * nothing a user of the core loads reaches the optional `pg`, and no file
 * imports itself back through others (type and dynamic imports included).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');

interface Import {
  readonly from: string;
  /** Its target file relative to src/ (for relative imports), else the package or `node:` name. */
  readonly target: string;
  /** `type` imports are erased; `dynamic` ones load only when reached. */
  readonly kind: 'static' | 'type' | 'dynamic';
}

const files = (dir: string, extension = '.ts'): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name), extension)
      : entry.name.endsWith(extension)
        ? [join(dir, entry.name)]
        : [],
  );

const targetOf = (file: string, from: string): string =>
  from.startsWith('.')
    ? relative(SRC, resolve(dirname(file), from)).replace(/\.js$/, '.ts')
    : from.replace(/^(@[^/]+\/[^/]+|[^/]+).*$/, '$1');

/** The imports of a source file (doc comments, whose examples import `signfold`, are skipped). */
const importsOf = (file: string): Import[] => {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  const found: Import[] = [];
  for (const match of text.matchAll(/^(?:import|export)(\s+type)?\s[^;]*?from\s+'([^']+)'/gm)) {
    const from = match[2] ?? '';
    found.push({ from, target: targetOf(file, from), kind: match[1] ? 'type' : 'static' });
  }
  for (const match of text.matchAll(/(?<!typeof )\bimport\('([^']+)'\)/g)) {
    const from = match[1] ?? '';
    found.push({ from, target: targetOf(file, from), kind: 'dynamic' });
  }
  return found;
};

const SOURCES = new Map(files(SRC).map((file) => [relative(SRC, file), importsOf(file)]));

/** The layer of a file under src/. */
const layerOf = (path: string): string => {
  const [top = ''] = path.split('/');
  if (
    [
      'events',
      'sign-request',
      'projections',
      'ids.ts',
      'decode-error.ts',
      'visible-text.ts',
      'reactors',
    ].includes(top)
  ) {
    return 'core';
  }
  return top.endsWith('.ts') ? 'root' : top;
};

/** What each layer may import: other layers, and packages (`node:` for any built-in). */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  core: ['core', 'immer', 'ts-pattern', 'neverthrow'],
  engine: ['core', 'engine', 'immer', 'ts-pattern', 'neverthrow'],
  store: ['core', 'engine', 'store', 'neverthrow', 'node:'],
  postgres: ['core', 'engine', 'postgres', 'neverthrow', 'immer', 'pg', 'pg-copy-streams', 'node:'],
  report: [
    'core',
    'engine',
    'report',
    'neverthrow',
    'immer',
    'ts-pattern',
    'd3-scale',
    'd3-time',
    'd3-time-format',
    'node:',
  ],
  webhooks: ['core', 'engine', 'webhooks', 'neverthrow', 'node:'],
};

const allowed = (layer: string, target: string): boolean => {
  const rules = ALLOWED[layer];
  if (rules === undefined) return true;
  if (target.startsWith('node:')) return rules.includes('node:');
  return rules.includes(target.endsWith('.ts') ? layerOf(target) : target);
};

/** Every file a module loads when imported, following static (not type, not dynamic) imports. */
const loadedBy = (entry: string): Set<string> => {
  const seen = new Set<string>();
  const visit = (target: string): void => {
    if (seen.has(target)) return;
    seen.add(target);
    for (const found of SOURCES.get(target) ?? []) {
      if (found.kind === 'static') visit(found.target);
    }
  };
  visit(entry);
  return seen;
};

/**
 * The import cycles of src/, each as the files around it (the first repeated at the end).
 * Every kind of import counts: a type import still ties the two files' designs
 * together, and a dynamic one still loads the other file when it runs.
 */
const cyclesOf = (sources: ReadonlyMap<string, readonly Import[]>): string[][] => {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string): void => {
    if (onPath.has(file)) {
      cycles.push([...path.slice(path.indexOf(file)), file]);
      return;
    }
    if (done.has(file)) return;
    path.push(file);
    onPath.add(file);
    for (const found of sources.get(file) ?? []) {
      if (sources.has(found.target)) visit(found.target);
    }
    onPath.delete(file);
    path.pop();
    done.add(file);
  };
  for (const file of [...sources.keys()].sort()) visit(file);
  return cycles;
};

/** The lines of every source file of src/ and scripts/ (as `wc -l` counts them). */
const lineCounts = (): Map<string, number> => {
  const root = resolve(SRC, '..');
  const all = [...files(SRC), ...files(join(root, 'scripts'), '.js')];
  return new Map(
    all.map((file) => [relative(root, file), readFileSync(file, 'utf8').split('\n').length - 1]),
  );
};

describe('architecture', () => {
  it('reads the imports it checks', () => {
    expect(SOURCES.get('postgres/import-events.ts')).toContainEqual({
      from: 'pg-copy-streams',
      target: 'pg-copy-streams',
      kind: 'dynamic',
    });
    expect(SOURCES.get('projections/reduce.ts')?.map((found) => found.target)).toContain('immer');
  });

  it('finds an import cycle, through type and dynamic imports too', () => {
    const sources = new Map<string, Import[]>([
      ['a.ts', [{ from: './b.js', target: 'b.ts', kind: 'static' }]],
      ['b.ts', [{ from: './c.js', target: 'c.ts', kind: 'dynamic' }]],
      [
        'c.ts',
        [
          { from: './a.js', target: 'a.ts', kind: 'type' },
          { from: 'immer', target: 'immer', kind: 'static' },
        ],
      ],
      ['d.ts', [{ from: './a.js', target: 'a.ts', kind: 'static' }]],
    ]);
    expect(cyclesOf(sources)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    expect(cyclesOf(new Map([...sources].filter(([file]) => file !== 'c.ts')))).toEqual([]);
  });

  it('no file of src/ imports itself back, by any path', () => {
    expect(cyclesOf(SOURCES).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('every source file of src/ and scripts/ stays under 300 lines (one concept per file)', () => {
    const counts = lineCounts();
    expect(counts.get('scripts/generate-example.js')).toBeGreaterThan(20);
    expect(counts.size).toBeGreaterThan(100);
    const long = [...counts].filter(([, lines]) => lines >= 300).map(([file]) => file);
    expect(long).toEqual([]);
  });

  it.each([...SOURCES.keys()].filter((path) => ALLOWED[layerOf(path)] !== undefined))(
    '%s imports only what its layer may',
    (path) => {
      const layer = layerOf(path);
      const wrong = (SOURCES.get(path) ?? []).filter((found) => !allowed(layer, found.target));
      expect(wrong, `${layer} must not import these`).toEqual([]);
    },
  );

  it('the main entry point and the CLI load neither pg nor the PostgreSQL adapter', () => {
    for (const entry of ['index.ts', 'testing/index.ts', 'cli/main.ts']) {
      const loaded = [...loadedBy(entry)];
      expect(
        loaded.filter((target) => target.startsWith('pg') || target.startsWith('postgres/')),
        entry,
      ).toEqual([]);
      expect(loaded.length, entry).toBeGreaterThan(3);
    }
  });

  it('only the report loads d3: not the main entry point, signfold/core, the testing kit nor the CLI at start', () => {
    const d3 = (entry: string) => [...loadedBy(entry)].filter((target) => target.startsWith('d3-'));
    for (const entry of ['index.ts', 'core.ts', 'testing/index.ts', 'cli/main.ts']) {
      expect(d3(entry), entry).toEqual([]);
    }
    expect(d3('report/render-report.ts')).toEqual(['d3-scale', 'd3-time', 'd3-time-format']);
    const importers = [...SOURCES]
      .filter(([, found]) => found.some((f) => f.target.startsWith('d3-')))
      .map(([file]) => file);
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((file) => !file.startsWith('report/'))).toEqual([]);
  });

  it('signfold/core loads only the pure core and its builders: no node: module, no I/O', () => {
    const loaded = [...loadedBy('core.ts')];
    const outside = loaded.filter(
      (target) =>
        target !== 'core.ts' &&
        !['testing/event-builders.ts', 'testing/plain-builders.ts'].includes(target) &&
        !allowed('core', target),
    );
    expect(outside).toEqual([]);
    expect(loaded).toContain('projections/reduce.ts');
    expect(loaded).toContain('testing/plain-builders.ts');
  });

  it('the CLI loads a command only when it runs, so a replay pays no start-up for the report', () => {
    const atStart = [...loadedBy('cli/main.ts')];
    expect(atStart.filter((target) => target.endsWith('-command.ts'))).toEqual([]);
    expect(atStart.filter((target) => target.startsWith('report/'))).toEqual([]);
    const replay = [...loadedBy('cli/replay-command.ts')];
    expect(replay.filter((target) => target.startsWith('report/'))).toEqual([]);
    expect(replay).toContain('engine/projector.ts');
  });
});
