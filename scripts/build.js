// @ts-check
/**
 * `npm run build`: compiles src/ into dist/ with tsc (the library's modules, their declarations
 * and maps), then bundles the CLI with esbuild: `dist/cli/main.js`, the executable, is replaced by
 * the bundle's entry, with its chunks in `dist/cli/chunks/` (the path every script, doc and
 * supervisor already uses stays the same).
 *
 * Why a bundle for the executable: every start of `signfold` loaded about 165 modules of its own
 * one by one, and Node 20 has no compile cache; a bundle in a few chunks (split at the commands'
 * dynamic imports) starts in about a third less CPU. A test run starts the CLI hundreds of times;
 * an operator's scripts and supervisors start it too. Dependencies stay outside the bundle (they
 * are resolved from node_modules as before, and an optional peer such as `pg` is still loaded only
 * by the commands that need it), but the executable imports a dependency's ES module build where
 * Node would load its CommonJS one: see {@link esmBuildOf}. The library's entry points are not
 * bundled: the CLI's copy of the core is its own, and the objects a user's module (reactors,
 * upcasters, tracing) hands it are plain data, functions and OpenTelemetry providers, so no check
 * of identity crosses the two.
 *
 * `node scripts/build.js --no-check` emits without type checking (see clean-build.js).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * The executable: two levels below the root, where src/cli/version.ts expects it. Written last
 * by {@link build}, so its time is the build's.
 */
export const CLI_BUNDLE = join(ROOT, 'dist', 'cli', 'main.js');

const CLI_DIR = join(ROOT, 'dist', 'cli');

/**
 * The path of `name`'s ES module build, for a package that has one (its `module` field) but no
 * `exports` map, where Node 20 ignores `module` and loads the CommonJS `main`: neverthrow, which
 * Node then parses twice (once to find its exports, once to run it), about 25 ms of every start of
 * `signfold` (medians of 12 alternated runs: 245 against 220 ms for a `replay` of 3 lines).
 * Without an `exports` map a path inside the package is public; with one, Node picks the build
 * itself, and this returns `undefined`.
 * @param {string} name
 * @returns {string | undefined}
 */
const esmBuildOf = (name) => {
  const manifest = JSON.parse(
    readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'),
  );
  return manifest.exports === undefined &&
    manifest.type !== 'module' &&
    typeof manifest.module === 'string'
    ? `${name}/${manifest.module.replace(/^\.\//, '')}`
    : undefined;
};

/** The executable's imports of a package's root, rewritten to its ES module build where it has one. */
const DEPENDENCY_BUILDS = Object.fromEntries(
  Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).dependencies)
    .map((name) => [name, esmBuildOf(name)])
    .filter(([, path]) => path !== undefined),
);

/**
 * esbuild's `packages: 'external'`, with the imports of {@link DEPENDENCY_BUILDS} rewritten.
 * @type {import('esbuild').Plugin}
 */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.kind === 'entry-point'
        ? undefined
        : { path: DEPENDENCY_BUILDS[args.path] ?? args.path, external: true },
    );
  },
};

/**
 * Compiles and bundles; throws (with tsc's or esbuild's output on stderr) when either fails.
 * @param {{ check?: boolean, quiet?: boolean }} [options] `check: false` for tsc's `--noCheck`
 */
export const build = async ({ check = true, quiet = false } = {}) => {
  // TypeScript 7, the native compiler: the same JavaScript as TypeScript 6's, byte for byte, and
  // equivalent declarations (they differ in quotes, in the order of union members and object
  // keys, and in `typeof` where TypeScript 6 spelled a type out), in about a quarter of the CPU
  // (2.3 s against 9 s here) and of the time of the one step of `npm test` where a core idles.
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'typescript-native', 'bin', 'tsc'),
      '-p',
      'tsconfig.build.json',
      ...(check ? [] : ['--noCheck']),
    ],
    { cwd: ROOT, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit', encoding: 'utf8' },
  );
  const esbuild = await import('esbuild');
  const bundled = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'dist/cli/main.js' },
    outdir: 'dist/cli',
    allowOverwrite: true,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [externalPackages],
    // Through tsc's maps: a stack trace under --enable-source-maps names src/ lines.
    sourcemap: 'linked',
    sourcesContent: false, // the package carries src/
    metafile: true,
    logLevel: 'warning',
  });
  // A build leaves esbuild's service process running until this process exits: in
  // vitest's global setup (test/support/ensure-build.ts) that is the whole run, and the run's
  // process guard would find it.
  await esbuild.stop();
  // tsc's modules of the CLI are in the bundle now: left beside it, they would only be a second
  // copy in the package that nothing loads.
  const written = new Set(Object.keys(bundled.metafile.outputs).map((path) => join(ROOT, path)));
  for (const entry of readdirSync(CLI_DIR, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && !written.has(path)) rmSync(path);
  }
  for (const entry of readdirSync(CLI_DIR, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name !== 'chunks')
      rmSync(join(CLI_DIR, entry.name), { recursive: true });
  }
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    await build({ check: !process.argv.slice(2).includes('--no-check') });
  } catch {
    process.exitCode = 1; // tsc or esbuild has said why
  }
}
