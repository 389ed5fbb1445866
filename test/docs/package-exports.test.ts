/**
 * The published package: importing `signfold` by name (Node resolves a
 * package's own name through its `exports` map) gives the runtime API of
 * `src/index.ts`, and the declared types exist. Needs `dist/`, which the
 * global setup (test/support/ensure-build.ts) keeps up to date.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as core from '../../src/core/index.js';
import * as http from '../../src/http/index.js';
import * as source from '../../src/index.js';
import * as webhooks from '../../src/webhooks/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, { types?: string; import?: string } | string>;
};
const main = manifest.exports['.'];

describe('package exports', () => {
  it('importing the package by name gives exactly the runtime exports of src/index.ts', async () => {
    // By a variable name, so the type checker (which runs before the build) does not resolve it.
    const name: string = manifest.name;
    expect(name).toBe('signfold');
    const published = (await import(name)) as Record<string, unknown>;
    const expected = Object.keys(source).sort();
    expect(expected.length).toBeGreaterThan(10);
    expect(Object.keys(published).sort()).toEqual(expected);
    // Loaded from dist/, not the sources under test: distinct module instances.
    expect(published.createProjector).not.toBe(source.createProjector);
    // Same kinds of value, name by name (a function stays a function, a constant keeps its value).
    for (const key of expected) {
      const ours = (source as Record<string, unknown>)[key];
      const theirs = published[key];
      expect(typeof theirs, key).toBe(typeof ours);
      if (typeof ours !== 'function' && typeof ours !== 'object') expect(theirs, key).toBe(ours);
    }
  });

  it('resolves to the built file named by exports["."].import', async () => {
    expect(typeof main).toBe('object');
    const target = typeof main === 'object' ? main.import : undefined;
    expect(target).toBe('./dist/index.js');
    expect(import.meta.resolve(manifest.name)).toBe(pathToFileURL(join(ROOT, target ?? '')).href);
  });

  it('exports["."].types points at a declaration file that exists', () => {
    const types = typeof main === 'object' ? main.types : undefined;
    expect(types).toMatch(/\.d\.ts$/);
    expect(existsSync(join(ROOT, types ?? 'missing'))).toBe(true);
    // The declarations are those of the entry point the import condition names.
    expect(types?.replace(/\.d\.ts$/, '.js')).toBe(typeof main === 'object' ? main.import : '');
  });
});

describe('signfold/core', () => {
  const entry = manifest.exports['./core'];

  it('resolves by name to the built core, with its declarations next to it', () => {
    expect(entry).toEqual({ types: './dist/core/index.d.ts', import: './dist/core/index.js' });
    expect(import.meta.resolve(`${manifest.name}/core`)).toBe(
      pathToFileURL(join(ROOT, 'dist/core/index.js')).href,
    );
    expect(existsSync(join(ROOT, 'dist/core/index.d.ts'))).toBe(true);
  });

  it('exports exactly the runtime names of src/core/index.ts', async () => {
    const name = `${manifest.name}/core`;
    const published = (await import(name)) as Record<string, unknown>;
    expect(Object.keys(published).sort()).toEqual(Object.keys(core).sort());
  });

  it('is a subset of signfold, with the same values', async () => {
    const main = (await import(manifest.name)) as Record<string, unknown>;
    const published = (await import(`${manifest.name}/core`)) as Record<string, unknown>;
    expect(Object.keys(published).length).toBeGreaterThan(20);
    for (const [key, value] of Object.entries(published)) expect(value, key).toBe(main[key]);
  });
});

describe('signfold/webhooks', () => {
  it('resolves by name to the built webhooks entry, which exports the receiver', async () => {
    expect(manifest.exports['./webhooks']).toEqual({
      types: './dist/webhooks/index.d.ts',
      import: './dist/webhooks/index.js',
    });
    expect(existsSync(join(ROOT, 'dist/webhooks/index.d.ts'))).toBe(true);
    const published = (await import(`${manifest.name}/webhooks`)) as Record<string, unknown>;
    expect(Object.keys(published).sort()).toEqual(Object.keys(webhooks).sort());
    expect(Object.keys(published)).toContain('createWebhookHandler');
  });
});

describe('signfold/http', () => {
  it('resolves by name to the built http entry', async () => {
    expect(manifest.exports['./http']).toEqual({
      types: './dist/http/index.d.ts',
      import: './dist/http/index.js',
    });
    expect(existsSync(join(ROOT, 'dist/http/index.d.ts'))).toBe(true);
    const published = (await import(`${manifest.name}/http`)) as Record<string, unknown>;
    expect(Object.keys(published).sort()).toEqual(Object.keys(http).sort());
    expect(Object.keys(published).sort()).toEqual([
      'DEFAULT_READ_LINK_MS',
      'MAX_READ_LINK_MS',
      'createHealthHandler',
      'createReadHandler',
      'createReadLink',
      'nodeListener',
    ]);
  });
});

/** The runtime dependencies only `signfold report` loads. */
const REPORT_ONLY = new Set(['d3-scale', 'd3-time', 'd3-time-format']);

/**
 * The files a fresh Node process loads when it imports `specifiers` (from the
 * package root), by a module hook that records every resolved URL.
 */
const loadedModules = async (specifiers: readonly string[]): Promise<string[]> => {
  const hook = `data:text/javascript,${encodeURIComponent(
    'export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write("LOADED " + r.url + "\\n"); return r; }',
  )}`;
  const register = `data:text/javascript,${encodeURIComponent(
    `import { register } from 'node:module'; register(${JSON.stringify(hook)});`,
  )}`;
  const script = specifiers.map((s) => `await import(${JSON.stringify(s)});`).join('');
  const child = spawnSync(
    process.execPath,
    ['--import', register, '--input-type=module', '-e', script],
    { cwd: ROOT, encoding: 'utf8' },
  );
  expect(child.status, child.stderr).toBe(0);
  return child.stderr
    .split('\n')
    .filter((line) => line.startsWith('LOADED '))
    .map((line) => line.slice('LOADED '.length));
};

describe('the manifest', () => {
  const fields = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    repository: { type: string; url: string };
    homepage: string;
    bugs: { url: string };
  };
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version: string }>;
  };

  it('declares runtime dependencies as caret ranges from the locked versions, so applications share their copies', () => {
    const entries = Object.entries(fields.dependencies).filter(([name]) => !REPORT_ONLY.has(name));
    expect(entries.map(([name]) => name).sort()).toEqual([
      'immer',
      'neverthrow',
      'prom-client',
      'ts-pattern',
    ]);
    for (const [name, range] of entries) {
      expect(range, name).toBe(`^${lock.packages[`node_modules/${name}`]?.version}`);
    }
  });

  it('pins the report-only d3 packages to the locked versions: no application shares them, and the page must not change under a minor release', () => {
    const pinned = Object.entries(fields.dependencies).filter(([name]) => REPORT_ONLY.has(name));
    expect(pinned.map(([name]) => name).sort()).toEqual([...REPORT_ONLY].sort());
    for (const [name, version] of pinned) {
      expect(version, name).toBe(lock.packages[`node_modules/${name}`]?.version);
    }
  });

  it('importing signfold or signfold/core loads no d3 module (only the report does)', async () => {
    const loaded = await loadedModules(['signfold', 'signfold/core']);
    expect(loaded.filter((url) => /node_modules\/d3-|node_modules\/internmap/.test(url))).toEqual(
      [],
    );
    const report = await loadedModules(['./dist/report/render-report.js']);
    expect(report.some((url) => url.includes('node_modules/d3-scale/'))).toBe(true);
  });

  it('names one repository for the source, the home page and the issues', () => {
    const repo = /^git\+(https:\/\/github\.com\/[\w-]+\/[\w-]+)\.git$/.exec(
      fields.repository.url,
    )?.[1];
    expect(fields.repository.type).toBe('git');
    expect(repo).toBeDefined();
    expect(fields.homepage).toBe(`${repo}#readme`);
    expect(fields.bugs.url).toBe(`${repo}/issues`);
  });
});
