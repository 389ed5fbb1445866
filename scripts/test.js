// @ts-check
/**
 * `npm test`: every check and every test, in the least time a 2-core machine allows. A clean
 * build of dist/ comes first (the tests and the package checks read it), with the lint beside it;
 * then the tests run while, beside them, the type check, the package checks and the API reference
 * run one after another. Those are single-threaded and short; the tests keep both cores busy most of the
 * time but leave gaps (a worker waiting on a child process, the last long files), which the
 * checks fill. The checks' output is held back and printed after the tests', each under its name;
 * the exit code is 1 if anything failed, naming it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const bin = (/** @type {string} */ path) => join(ROOT, 'node_modules', path);

/** npm's own CLI script: the one running `npm test`, else the one beside this node. */
const npmCli = () =>
  process.env.npm_execpath ??
  join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');

/** Where the checks' tarball is packed, removed at the end. */
const PACKED = mkdtempSync(join(tmpdir(), 'signfold-checks-'));
const { name: NAME, version: VERSION } = JSON.parse(
  readFileSync(join(ROOT, 'package.json'), 'utf8'),
);
/** `npm pack`'s file name: a scope's `@` dropped and its `/` made a `-`. */
const TARBALL = join(PACKED, `${NAME.replace(/^@/, '').replace('/', '-')}-${VERSION}.tgz`);

/**
 * What runs beside the tests, in this order. The lint reads the sources only, so it runs beside
 * the build, on the core the build leaves idle; the others read dist/ (the typecheck too: a test
 * imports the built test kit, and an example the package by name), so they wait for it.
 */
const CHECKS = [
  { name: 'lint', args: [bin('@biomejs/biome/bin/biome'), 'check', '.'], beforeBuild: true },
  // TypeScript 7, the native compiler (which also builds): the same check in about a quarter of
  // the CPU of TypeScript 6's (which typedoc and the tests' compiler API use).
  {
    name: 'typecheck',
    args: [bin('typescript-native/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'],
  },
  // publint and attw read one tarball: each packing the package itself cost an `npm pack`
  // (about 5 s of CPU) apiece. Packed without scripts: nothing may rebuild dist/ under the
  // running tests.
  {
    name: 'pack',
    args: [npmCli(), 'pack', '--ignore-scripts', '--pack-destination', PACKED],
  },
  { name: 'publint', args: [bin('publint/src/cli.js'), 'run', TARBALL, '--strict'] },
  {
    name: 'attw',
    args: [
      bin('@arethetypeswrong/cli/dist/index.js'),
      TARBALL,
      '--profile',
      'esm-only',
      '--no-emoji',
    ],
  },
  { name: 'docs:api', args: [bin('typedoc/bin/typedoc')] },
];

/**
 * Runs node with `args` in the root; resolves with its exit code and, when `capture`, its output.
 * @param {readonly string[]} args
 * @param {{ capture: boolean, env?: Record<string, string> }} options
 * @returns {Promise<{ code: number, output: string }>}
 */
const node = (args, options) =>
  new Promise((done) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...options.env },
      stdio: options.capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    let output = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => done({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) =>
      done({ code: code ?? (signal === null ? 1 : 128), output }),
    );
  });

const started = performance.now();
const seconds = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;

// Emitted unchecked: the typecheck below checks src/ with test/ (see clean-build.js).
const building = node([join(ROOT, 'scripts', 'clean-build.js'), '--no-check'], {
  capture: false,
});

/** @type {{ name: string, code: number, output: string, at: string }[]} */
const checked = [];
const checks = (async () => {
  for (const check of CHECKS) {
    if (!check.beforeBuild && (await building).code !== 0) return;
    const { code, output } = await node(check.args, { capture: true, env: check.env });
    checked.push({ name: check.name, code, output, at: seconds() });
  }
})();
if ((await building).code !== 0) {
  await checks;
  rmSync(PACKED, { recursive: true, force: true });
  console.error('npm test: the build failed');
  process.exit(1);
}
const tests = node([bin('vitest/vitest.mjs'), 'run', '--typecheck.enabled=false'], {
  capture: false,
});
const [{ code: testsCode }] = await Promise.all([tests, checks]);
rmSync(PACKED, { recursive: true, force: true });

for (const { name, code, output, at } of checked) {
  console.log(`\n${name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`}, done at ${at}`);
  if (code !== 0 || process.env.SIGNFOLD_TEST_VERBOSE === '1') console.log(output.trimEnd());
}
const failed = [...checked.filter((c) => c.code !== 0).map((c) => c.name)];
if (testsCode !== 0) failed.push('tests');
console.log(
  `\nnpm test: ${failed.length === 0 ? 'everything passed' : `failed: ${failed.join(', ')}`} in ${seconds()}`,
);
process.exit(failed.length === 0 ? 0 : 1);
