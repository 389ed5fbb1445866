/**
 * The folders show the data flow, and the imports must follow it. A file's
 * layer is its top folder under `src/` (`core/`, `engine/`, `store/`, ...):
 * the pure core imports no I/O, the engine only the core, adapters never each
 * other, nothing a user of the core loads reaches the optional `pg`, and no
 * file imports itself back through others (type and dynamic imports included).
 *
 * Imports are read with TypeScript's own parser (already what builds the
 * project), so every form counts: `import`, `export … from`, `import type`,
 * `import()`, and no comment or template string is mistaken for one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');

interface Import {
  readonly from: string;
  /** Its target file relative to src/ (for relative imports), else the package or `node:` name. */
  readonly target: string;
  /** `type` imports are erased; `dynamic` ones load only when reached. */
  readonly kind: 'static' | 'type' | 'dynamic';
}

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );

const targetOf = (file: string, from: string): string =>
  from.startsWith('.')
    ? relative(SRC, resolve(dirname(file), from)).replace(/\.js$/, '.ts')
    : from.replace(/^(@[^/]+\/[^/]+|[^/]+).*$/, '$1');

/** Whether every name of an import or export declaration is a type (so it is erased). */
const typeOnly = (node: ts.ImportDeclaration | ts.ExportDeclaration): boolean => {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const clause = node.exportClause;
    return (
      clause !== undefined &&
      ts.isNamedExports(clause) &&
      clause.elements.length > 0 &&
      clause.elements.every((element) => element.isTypeOnly)
    );
  }
  const clause = node.importClause;
  if (clause === undefined) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
};

/** The imports of a source file, as TypeScript parses them. */
const importsOf = (file: string, text = readFileSync(file, 'utf8')): Import[] => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (from: string, kind: Import['kind']): void => {
    found.push({ from, target: targetOf(file, from), kind });
  };
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, typeOnly(node) ? 'type' : 'static');
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, 'dynamic');
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, 'type');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

const SOURCES = new Map(files(SRC).map((file) => [relative(SRC, file), importsOf(file)]));

/** The layer of a file under src/: its top folder (`index.ts`, the main entry point, is `root`). */
const layerOf = (path: string): string => {
  const [top = ''] = path.split('/');
  return top.endsWith('.ts') ? 'root' : top;
};

const PURE = ['core', 'immer', 'ts-pattern', 'neverthrow'];

/**
 * What each layer may import: other layers, and packages (`node:` for any
 * built-in). The CLI and the root entry point compose everything; `testing`
 * may use the engine. Adapters (store, postgres, webhooks, http, otel,
 * report) never import one another, but for {@link DYNAMIC_EXCEPTIONS}.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  core: PURE,
  engine: [...PURE, 'engine'],
  store: [...PURE, 'engine', 'store', 'node:'],
  postgres: [...PURE, 'engine', 'postgres', 'pg', 'pg-copy-streams', 'node:'],
  webhooks: [...PURE, 'engine', 'webhooks', 'node:'],
  http: [...PURE, 'engine', 'http', 'node:'],
  otel: [...PURE, 'engine', 'otel', '@opentelemetry/api', 'node:'],
  report: [...PURE, 'engine', 'report', 'd3-scale', 'd3-time', 'd3-time-format', 'node:'],
  testing: [...PURE, 'engine', 'testing', 'root', 'node:'],
  // The sending side of webhooks: it signs with the receiving side's own signing (one copy of
  // it), and nothing else of src/webhooks (see the test of what it imports from there).
  emulator: [...PURE, 'emulator', 'webhooks', 'node:'],
};

/**
 * The one narrow exception to "adapters never import one another": the read
 * handler of `signfold/http` serves the state of a file log or of
 * PostgreSQL, and the live report, so it must reach the read model of the
 * store or of postgres, and the report's renderer. It does so from these
 * files alone and only by dynamic `import()`: a user of `signfold/http` pays
 * for `node:fs`, `pg` or d3 only when their options name a log, a database
 * or a request asks for the page (and the handler still loads where none
 * exists, as in an edge runtime).
 */
const DYNAMIC_EXCEPTIONS: Readonly<Record<string, readonly string[]>> = {
  'http/open-read-model.ts': ['store', 'postgres'],
  'http/read-routes.ts': ['report'],
};

const excepted = (file: string, found: Import): boolean =>
  found.kind === 'dynamic' &&
  found.target.endsWith('.ts') &&
  (DYNAMIC_EXCEPTIONS[file] ?? []).includes(layerOf(found.target));

const allowed = (layer: string, target: string): boolean => {
  const rules = ALLOWED[layer];
  if (rules === undefined) return true;
  if (target.startsWith('node:')) return rules.includes('node:');
  return rules.includes(target.endsWith('.ts') ? layerOf(target) : target);
};

/** The CLI's folders, lowest first after its shared files (those directly in src/cli/). */
const CLI_FOLDERS = [
  'cli/sources/',
  'cli/metrics/',
  'cli/definitions/',
  'cli/pg/',
  'cli/serve/',
  'cli/commands/',
];

/**
 * The PostgreSQL adapter's folders, lowest first: SQL building, the schema
 * and its migrations, `pg rebuild`'s schema and switch, the projection
 * tables, the erasure ledger and forgets, the event log, reactors, the
 * projection worker, and the read side. Each imports only the files directly
 * in `src/postgres/` and the folders before it, but one way back: the schema's
 * list of migrations names the reactors' own, which live with them.
 */
const POSTGRES_ORDER = [
  'sql',
  'schema',
  'rebuild',
  'tables',
  'forget',
  'log',
  'reactors',
  'worker',
  'read',
] as const;

const postgresOrder = POSTGRES_ORDER.map((folder, i) => ({
  folder: `postgres/${folder}/`,
  mustNotImport: POSTGRES_ORDER.slice(i + 1)
    .filter((above) => !(folder === 'schema' && above === 'reactors'))
    .map((above) => `postgres/${above}/`),
}));

/**
 * Inside a layer, folders that must not reach up: the report's model knows
 * nothing of charts or rendering, its charts nothing of the page, and the
 * CLI's shared files nothing of the commands that use them: where to read
 * events from (`sources/`) and what to measure (`metrics/`) know neither
 * each other nor `pg`, `serve` or the commands; the commands' definitions
 * (loaded at start-up for `--help`) reach none of the code that runs them;
 * and `pg` knows neither `serve` nor the commands. The PostgreSQL adapter's
 * folders follow {@link POSTGRES_ORDER}, and the files directly in
 * `src/postgres/` import none of them, but its entry point. A rule with
 * `directly` holds the files directly in its folder, but those it names
 * `except`: the CLI's dispatcher, which loads a command when it runs.
 */
const INNER_ORDER: readonly {
  readonly folder: string;
  readonly mustNotImport: string[];
  readonly directly?: true;
  readonly except?: readonly string[];
}[] = [
  {
    folder: 'report/model/',
    mustNotImport: ['report/charts/', 'report/render/', 'report/render-'],
  },
  { folder: 'report/charts/', mustNotImport: ['report/render/', 'report/render-'] },
  {
    folder: 'core/events/',
    mustNotImport: ['core/projections/', 'core/reactors/', 'core/builders/'],
  },
  { folder: 'core/sign-request/', mustNotImport: ['core/projections/', 'core/reactors/'] },
  {
    folder: 'core/projections/',
    mustNotImport: ['core/reactors/', 'core/builders/', 'core/decider/'],
  },
  { folder: 'cli/', directly: true, except: ['cli/run.ts'], mustNotImport: CLI_FOLDERS },
  {
    folder: 'cli/sources/',
    mustNotImport: CLI_FOLDERS.filter((folder) => folder !== 'cli/sources/'),
  },
  {
    folder: 'cli/metrics/',
    mustNotImport: CLI_FOLDERS.filter((folder) => folder !== 'cli/metrics/'),
  },
  {
    folder: 'cli/definitions/',
    mustNotImport: ['cli/sources/', 'cli/pg/', 'cli/serve/', 'cli/commands/'],
  },
  { folder: 'cli/pg/', mustNotImport: ['cli/commands/', 'cli/serve/'] },
  ...postgresOrder,
  {
    folder: 'postgres/',
    directly: true,
    except: ['postgres/index.ts'],
    mustNotImport: POSTGRES_ORDER.map((folder) => `postgres/${folder}/`),
  },
];

/** Whether `rule` holds `file`. */
const ruleHolds = (rule: (typeof INNER_ORDER)[number], file: string): boolean =>
  file.startsWith(rule.folder) &&
  !(rule.except ?? []).includes(file) &&
  (rule.directly !== true || !file.slice(rule.folder.length).includes('/'));

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

/** The folders named in the Layout section of docs/development.md, in the order it gives them. */
const readmeLayout = (): string[] => {
  const readme = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
  const section = readme.split(/^## Layout$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^- `src\/([\w-]+)\/`/gm)].map((match) => match[1] ?? '');
};

describe('architecture', () => {
  it('reads every kind of import, and nothing in a comment or a string', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C, type D } from './c.js';",
      "export type { E } from './e.js';",
      "export { f } from './f.js';",
      "const g = () => import('./g.js');",
      "type H = import('./h.js').H;",
      "/* import { x } from './x.js'; */",
      "const s = `import { y } from './y.js'`;",
    ].join('\n');
    const found = importsOf(join(SRC, 'core/sample.ts'), text);
    expect(found.map((f) => `${f.kind} ${f.target}`)).toEqual([
      'static core/a.ts',
      'type core/b.ts',
      'type core/c.ts',
      'type core/e.ts',
      'static core/f.ts',
      'dynamic core/g.ts',
      'type core/h.ts',
    ]);
    expect(SOURCES.get('postgres/log/import-events.ts')).toContainEqual({
      from: 'pg-copy-streams',
      target: 'pg-copy-streams',
      kind: 'dynamic',
    });
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

  it('every file of src/ lives in a layer folder, but the main entry point', () => {
    const layers = new Set([...SOURCES.keys()].map(layerOf));
    expect([...layers].sort()).toEqual([
      'cli',
      'core',
      'emulator',
      'engine',
      'http',
      'otel',
      'postgres',
      'report',
      'root',
      'store',
      'testing',
      'webhooks',
    ]);
    expect([...SOURCES.keys()].filter((path) => layerOf(path) === 'root')).toEqual(['index.ts']);
  });

  it('relative imports name files that exist', () => {
    const missing = [...SOURCES].flatMap(([file, found]) =>
      found
        .filter((f) => f.from.startsWith('.') && !SOURCES.has(f.target))
        .map((f) => `${file} → ${f.from}`),
    );
    expect(missing).toEqual([]);
  });

  it.each([...SOURCES.keys()].filter((path) => ALLOWED[layerOf(path)] !== undefined))(
    '%s imports only what its layer may',
    (path) => {
      const layer = layerOf(path);
      const wrong = (SOURCES.get(path) ?? []).filter(
        (found) => !allowed(layer, found.target) && !excepted(path, found),
      );
      expect(wrong, `${layer} must not import these`).toEqual([]);
    },
  );

  it('folders inside a layer import only downwards', () => {
    const wrong = [...SOURCES].flatMap(([file, found]) =>
      INNER_ORDER.filter((rule) => ruleHolds(rule, file)).flatMap((rule) =>
        found
          .filter((f) => rule.mustNotImport.some((folder) => f.target.startsWith(folder)))
          .map((f) => `${file} → ${f.target}`),
      ),
    );
    expect(wrong).toEqual([]);
    for (const { folder } of INNER_ORDER) {
      expect(
        [...SOURCES.keys()].some((file) => file.startsWith(folder)),
        folder,
      ).toBe(true);
    }
  });

  it('the engine knows no adapter: its ports name no file, lock or database', () => {
    const engine = [...SOURCES.keys()].filter((file) => file.startsWith('engine/'));
    expect(engine.length).toBeGreaterThan(5);
    for (const file of engine) {
      const text = readFileSync(join(SRC, file), 'utf8');
      expect(text, file).not.toMatch(/'(locked|lock-lost|io|database)'/);
      expect(text, file).not.toMatch(/\bLockHolder\b/);
    }
  });

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

  it('signfold/http loads no other adapter, nor pg, node:fs or d3, until its options or a request ask', () => {
    const loaded = [...loadedBy('http/index.ts')];
    expect(loaded).toContain('http/read-handler.ts');
    expect(
      loaded.filter(
        (target) =>
          !target.endsWith('.ts') || !['http', 'engine', 'core'].includes(layerOf(target)),
      ),
    ).toEqual(
      ['neverthrow', 'node:crypto', 'immer', 'ts-pattern'].filter((name) => loaded.includes(name)),
    );
    const reached = [...SOURCES]
      .filter(([file]) => file.startsWith('http/'))
      .flatMap(([file, found]) =>
        found
          .filter((f) => f.target.endsWith('.ts') && !allowed('http', f.target))
          .map((f) => `${f.kind} ${file} → ${f.target}`),
      );
    expect(reached.sort()).toEqual([
      'dynamic http/open-read-model.ts → postgres/read/open-read-model.ts',
      'dynamic http/open-read-model.ts → store/file-read-model.ts',
      'dynamic http/read-routes.ts → report/company-report.ts',
    ]);
  });

  it('only signfold/otel loads @opentelemetry/api, and no command loads it unless --tracing asks', () => {
    const entries = [
      'index.ts',
      'core/index.ts',
      'testing/index.ts',
      'postgres/index.ts',
      'webhooks/index.ts',
      'cli/main.ts',
      'cli/commands/react-command.ts',
      'cli/serve/serve-command.ts',
      'cli/pg/pg-command.ts',
    ];
    for (const entry of entries) {
      const loaded = [...loadedBy(entry)];
      expect(
        loaded.filter(
          (target) => target.startsWith('@opentelemetry') || target.startsWith('otel/'),
        ),
        entry,
      ).toEqual([]);
    }
    const importers = [...SOURCES]
      .filter(([, found]) => found.some((f) => f.target.startsWith('@opentelemetry')))
      .map(([file]) => file);
    expect(importers).toEqual(['otel/otel-tracing.ts']);
    // The CLI reaches the adapter only through a dynamic import, when --tracing names a module.
    expect(SOURCES.get('cli/tracing-module.ts')).toContainEqual({
      from: '../otel/otel-tracing.js',
      target: 'otel/otel-tracing.ts',
      kind: 'dynamic',
    });
    expect(loadedBy('otel/index.ts')).toContain('@opentelemetry/api');
  });

  it('only the report loads d3: not the main entry point, signfold/core, the testing kit nor the CLI at start', () => {
    const d3 = (entry: string) => [...loadedBy(entry)].filter((target) => target.startsWith('d3-'));
    for (const entry of ['index.ts', 'core/index.ts', 'testing/index.ts', 'cli/main.ts']) {
      expect(d3(entry), entry).toEqual([]);
    }
    expect(d3('report/render-report.ts')).toEqual(['d3-scale', 'd3-time', 'd3-time-format']);
    const importers = [...SOURCES]
      .filter(([, found]) => found.some((f) => f.target.startsWith('d3-')))
      .map(([file]) => file);
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((file) => !file.startsWith('report/'))).toEqual([]);
  });

  it('signfold/core loads only the pure core: no node: module, no I/O, nothing outside src/core/', () => {
    const loaded = [...loadedBy('core/index.ts')];
    expect(loaded.filter((target) => !allowed('core', target))).toEqual([]);
    expect(loaded).toContain('core/projections/reduce.ts');
    expect(loaded).toContain('core/projections/projection-state.ts');
  });

  it('signfold loads the core and the engine only: no node: module, no adapter', () => {
    const loaded = [...loadedBy('index.ts')];
    expect(
      loaded.filter(
        (target) => !/^(core|engine)\/|^index\.ts$|^(neverthrow|immer|ts-pattern)$/.test(target),
      ),
    ).toEqual([]);
    expect(loaded).toContain('engine/projector.ts');
  });

  it('the main entry point re-exports signfold/core rather than listing it again', () => {
    const main = SOURCES.get('index.ts') ?? [];
    expect(main.filter((f) => f.target === 'core/domain.ts').map((f) => f.kind)).toEqual([
      'static',
    ]);
    expect(
      main.filter((f) => f.target.startsWith('core/') && f.target !== 'core/domain.ts'),
    ).toEqual([]);
  });

  it('the CLI loads a command only when it runs, so a replay pays no start-up for the report', () => {
    const atStart = [...loadedBy('cli/main.ts')];
    expect(atStart.filter((target) => target.startsWith('cli/commands/'))).toEqual([]);
    expect(atStart.filter((target) => target.startsWith('cli/serve/'))).toEqual([]);
    expect(atStart.filter((target) => target.startsWith('report/'))).toEqual([]);
    const replay = [...loadedBy('cli/commands/replay-command.ts')];
    expect(replay.filter((target) => target.startsWith('report/'))).toEqual([]);
    expect(replay).toContain('engine/projector.ts');
  });

  it('the emulator takes only signing from src/webhooks, and its entry point loads no other adapter', () => {
    const fromWebhooks = [...SOURCES]
      .filter(([file]) => file.startsWith('emulator/'))
      .flatMap(([, found]) => found.map((f) => f.target))
      .filter((target) => target.startsWith('webhooks/'));
    expect([...new Set(fromWebhooks)].sort()).toEqual([
      'webhooks/sign-payload.ts',
      'webhooks/sign-standard.ts',
      'webhooks/webhook-types.ts',
    ]);
    const loaded = [...loadedBy('emulator/index.ts')];
    expect(loaded.filter((t) => /^(store|postgres|report|otel|cli|engine)\//.test(t))).toEqual([]);
  });

  it("docs/development.md's Layout section names every layer folder, in the order data flows", () => {
    const folders = [...new Set([...SOURCES.keys()].map(layerOf))].filter((l) => l !== 'root');
    expect(readmeLayout()).toEqual([
      'core',
      'engine',
      'store',
      'postgres',
      'webhooks',
      'http',
      'otel',
      'report',
      'emulator',
      'cli',
      'testing',
    ]);
    expect([...readmeLayout()].sort()).toEqual(folders.sort());
  });
});
