/**
 * `npm pack` from a clean checkout (no dist/) gives a package that works once
 * installed: the package's own `prepack`/`prepare` build it. Installed into a
 * scratch application, the README's example prints what the README says, and
 * the CLI replays the example log that ships with the package. Run by packed.test.ts.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PackedApp } from './fixtures/packed-app.js';
import { replayOutput, usageCode, usageOutput } from './fixtures/readme-snippets.js';
import { exec, ROOT } from './fixtures/scratch-app.js';

/** The tests of the tarball packed from a clean checkout and of the application it is installed in. */
export const describeCleanPack = (packedApp: () => PackedApp): void => {
  describe('the package packed from a clean checkout', () => {
    let packed: PackedApp['packed'];
    let app: string;
    beforeAll(() => {
      ({ packed, app } = packedApp());
    });

    it('carries every entry point compiled, with its declarations', async () => {
      const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
        exports: Record<string, { types: string; import: string } | string>;
      };
      const entries = Object.entries(manifest.exports).flatMap(([name, target]) =>
        typeof target === 'string' ? [] : [[name, target] as const],
      );
      expect(entries.length).toBeGreaterThanOrEqual(11);
      for (const [name, { types, import: code }] of entries) {
        expect(packed.files, name).toContain(code.replace(/^\.\//, ''));
        expect(packed.files, name).toContain(types.replace(/^\.\//, ''));
      }
    });

    it('carries the executable as one bundle: its entry, its chunks, and no second copy', () => {
      const cli = packed.files.filter((path) => path.startsWith('dist/cli/'));
      expect(cli).toContain('dist/cli/main.js');
      expect(cli).toContain('dist/cli/main.js.map');
      const chunks = cli.filter((path) => /^dist\/cli\/chunks\/[\w-]+\.js$/.test(path));
      expect(chunks.length).toBeGreaterThan(10);
      // tsc's modules of the CLI are in the bundle; none is left beside it.
      expect(
        cli.filter(
          (path) => !/^dist\/cli\/(main\.js(\.map)?|chunks\/[\w-]+\.js(\.map)?)$/.test(path),
        ),
      ).toEqual([]);
    });

    it('runs no script when installed: its package.json has no install-time script', async () => {
      const installed = JSON.parse(
        await readFile(join(app, 'node_modules/signfold/package.json'), 'utf8'),
      ) as { scripts?: Record<string, string> };
      const scripts = Object.keys(installed.scripts ?? {});
      expect(scripts).toContain('prepack');
      expect(scripts.filter((name) => /^(pre|post)?install$|^prepare$/.test(name))).toEqual([]);
    });

    it('leaves out the API reference and everything only the repository needs', () => {
      const tops = new Set(packed.files.map((path) => path.split('/')[0]));
      expect([...tops].sort()).toEqual(
        ['LICENSE', 'README.md', 'dist', 'docs', 'examples', 'package.json', 'src'].sort(),
      );
      expect(packed.files.filter((path) => path.startsWith('docs/api/'))).toEqual([]);
      expect(packed.files.filter((path) => path.startsWith('examples/')).sort()).toEqual([
        'examples/README.md',
        'examples/events.ndjson',
        'examples/sign-request.json',
      ]);
    });

    it('carries every image its README and docs embed, so the installed README shows them', async () => {
      const installed = join(app, 'node_modules', 'signfold');
      const documents = packed.files.filter((path) => path.endsWith('.md'));
      expect(documents).toContain('README.md');
      const images: string[] = [];
      for (const document of documents) {
        const text = await readFile(join(installed, document), 'utf8');
        for (const [, target = ''] of text.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)) {
          if (/^[a-z]+:/i.test(target)) continue;
          images.push(join(dirname(document), target));
        }
      }
      expect(images).toContain('docs/report-screenshot.png');
      expect(images.filter((image) => !packed.files.includes(image))).toEqual([]);
    });

    it('has source maps and declaration maps whose sources are in the package', async () => {
      const maps = packed.files.filter((path) => path.endsWith('.map'));
      expect(maps.length).toBeGreaterThan(100);
      const installed = join(app, 'node_modules', 'signfold');
      const missing: string[] = [];
      for (const map of maps) {
        const { sources } = JSON.parse(await readFile(join(installed, map), 'utf8')) as {
          sources: string[];
        };
        for (const source of sources) {
          const target = resolve(dirname(join(installed, map)), source);
          if (!existsSync(target)) missing.push(`${map} -> ${source}`);
        }
      }
      expect(missing).toEqual([]);
    });

    it('runs the README example in an application and prints what the README says', async () => {
      // The example is TypeScript: strip its types (nothing else changes) to run it with node.
      const { transform } = await import('esbuild');
      const { code } = await transform(usageCode(), { loader: 'ts', format: 'esm' });
      await writeFile(join(app, 'usage.mjs'), code);
      const { stdout, stderr } = await exec(process.execPath, ['usage.mjs'], app);
      expect(stderr).toBe('');
      expect(stdout).toBe(usageOutput());
    });

    it('replays the example log it ships with, as docs/cli.md shows: npx signfold replay', async () => {
      const log = 'node_modules/signfold/examples/events.ndjson';
      for (const doc of ['docs/cli.md', 'README.md']) {
        expect(await readFile(join(ROOT, doc), 'utf8'), doc).toContain(
          `npx signfold replay ${log}`,
        );
      }
      const { stdout } = await exec('npx', ['--offline', 'signfold', 'replay', log], app);
      const varying = (line: string) => line.startsWith('Log:') || line.startsWith('Elapsed:');
      const printed = stdout.split('\n');
      expect(printed.filter((line) => !varying(line))).toEqual(
        replayOutput()
          .split('\n')
          .filter((line) => !varying(line)),
      );
      expect(printed[0]).toBe(`Log:            ${log}`);
    });
  });
};
