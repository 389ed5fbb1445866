// @ts-check
/**
 * The browser of the browser tests and bench/report.js: a Chromium driven by
 * playwright-core (which never downloads a browser), headless. Which one:
 *
 * 1. the executable `SIGNFOLD_CHROMIUM` names, when set (a machine's Chrome or Chromium);
 * 2. on Linux x64, the one the devDependency `@sparticuz/chromium` ships (brotli-compressed in
 *    node_modules; unpacked once per version into the temporary directory, see `unpackSparticuz`),
 *    with the only fonts it ships, Open Sans, so that text measures the same on every machine;
 * 3. elsewhere (macOS, Windows, Linux on arm64, for which the npm package has no binary), a
 *    Chrome, Edge or Chromium at its usual paths.
 *
 * When none is found, `findChromium` throws the one-line `NO_CHROMIUM`.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, homedir, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';

/** The variable that names a Chrome or Chromium executable to use instead of the default. */
export const CHROMIUM_VARIABLE = 'SIGNFOLD_CHROMIUM';

/** The error when no browser is found for the platform. */
export const NO_CHROMIUM = `no Chrome or Chromium found: set ${CHROMIUM_VARIABLE} to the path of one`;

/**
 * The flags the browser starts with (playwright-core adds `--headless` and its own defaults, most
 * of these among them). Of the flags `@sparticuz/chromium` recommends for AWS Lambda none is
 * needed here: the browser starts and every browser test passes without them.
 * `--single-process` and `--no-zygote` answer Lambda's sandbox (and the first is fragile),
 * `--disable-web-security` and `--allow-running-insecure-content` would hide what the tests
 * check (that a page asks for nothing), and `--in-process-gpu` and the SwiftShader ones serve a
 * GPU stack that `--disable-gpu` leaves off.
 */
export const CHROMIUM_ARGS = Object.freeze([
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
]);

/** Where a Chrome, Edge or Chromium is usually installed, by platform (3. above). */
const usualPaths = () => {
  const env = process.env;
  switch (platform()) {
    case 'darwin':
      return [
        'Google Chrome.app/Contents/MacOS/Google Chrome',
        'Chromium.app/Contents/MacOS/Chromium',
      ].flatMap((app) =>
        ['/Applications', join(homedir(), 'Applications')].map((d) => join(d, app)),
      );
    case 'win32':
      return [env.LOCALAPPDATA, env.PROGRAMFILES, env['PROGRAMFILES(X86)']]
        .filter((base) => base !== undefined)
        .flatMap((base) => [
          join(base, 'Google', 'Chrome', 'Application', 'chrome.exe'),
          join(base, 'Microsoft', 'Edge', 'Application', 'msedge.exe'),
        ]);
    default:
      return ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'].map(
        (name) => `/usr/bin/${name}`,
      );
  }
};

/**
 * Runs `path --version` with `env` added: its output, or the error and the stderr it printed
 * (a binary that is cut short, or whose shared libraries are missing, fails here).
 * @param {string} path
 * @param {Record<string, string>} env
 * @returns {Promise<{ ok: boolean, output: string }>}
 */
const versionOf = (path, env) =>
  new Promise((resolve) => {
    execFile(
      path,
      ['--version'],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ ok: error === null, output: `${stdout}${stderr}`.trim() || String(error) }),
    );
  });

/**
 * Runs `script` with `node -e` and `env` added; rejects with its stderr when it fails.
 * @param {string} script
 * @param {Record<string, string>} env
 * @returns {Promise<void>}
 */
const runNode = (script, env) =>
  new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', script],
      { env: { ...process.env, ...env }, timeout: 300_000 },
      (error, _stdout, stderr) => (error ? reject(new Error(stderr || String(error))) : resolve()),
    );
  });

/** Whether process `pid` is alive (on this machine's view of processes). */
const alive = (/** @type {number} */ pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
};

/**
 * Unpacks `@sparticuz/chromium`'s browser into `<tmpdir>/signfold-chromium-<version>/`, once,
 * and returns that directory. Concurrent calls (two test runs at once, a test run and a bench)
 * are safe without a lock: each unpacks into a directory of its own, in a child process whose
 * temporary directory it is (the package unpacks into `os.tmpdir()`, by default into `/tmp`
 * itself, where two unpackings at once race and one may find the other's binary half written),
 * then renames it into place. The rename is atomic, so the directory is complete or absent; a
 * call that loses the race discards its copy. The copy of a process that died meanwhile (about
 * 200 MB) is deleted by the next unpacking. About 5 s of CPU, the first time.
 *
 * The directory holds the browser (`chromium`), its fonts (`fonts/`, Open Sans), its graphics
 * libraries, `al2023/lib/` (NSS, NSPR and expat, which the package normally unpacks only on
 * Amazon Linux 2023, where they are missing; `CODEBUILD_BUILD_IMAGE=nodejs20` is one of the signs
 * it recognises) and a `fonts.conf` naming only those fonts.
 * @returns {Promise<string>}
 */
const unpackSparticuz = async () => {
  const require = createRequire(import.meta.url);
  let entry;
  try {
    entry = require.resolve('@sparticuz/chromium');
  } catch {
    throw new Error(
      `@sparticuz/chromium is not installed (npm ci installs it); or set ${CHROMIUM_VARIABLE}`,
    );
  }
  // entry: node_modules/@sparticuz/chromium/build/cjs/index.cjs
  const { version } = JSON.parse(
    readFileSync(join(dirname(entry), '..', '..', 'package.json'), 'utf8'),
  );
  const name = `signfold-chromium-${version}`;
  const dir = join(tmpdir(), name);
  if (existsSync(join(dir, 'chromium'))) return dir;
  for (const left of await readdir(tmpdir())) {
    const pid = Number(/^signfold-chromium-.+\.partial-(\d+)-/.exec(left)?.[1] ?? Number.NaN);
    // Best effort: the child of a killed call may still be writing there.
    if (Number.isInteger(pid) && !alive(pid)) {
      await rm(join(tmpdir(), left), { recursive: true, force: true }).catch(() => undefined);
    }
  }
  const staging = join(
    tmpdir(),
    `${name}.partial-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  await mkdir(staging);
  try {
    await runNode(`require(${JSON.stringify(entry)}).executablePath()`, {
      TMPDIR: staging,
      CODEBUILD_BUILD_IMAGE: 'nodejs20',
    });
    // The package's own fonts.conf names /tmp/fonts; this one names the fonts beside the browser.
    await writeFile(
      join(staging, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(dir, 'fonts')}</dir>\n  <cachedir>${join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
    );
    await rename(staging, dir).catch((/** @type {unknown} */ error) => {
      // Another call renamed its copy first: use that one.
      if (!existsSync(join(dir, 'chromium'))) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return dir;
};

/**
 * The browser to launch (see the top of this file): its executable, and the variables it needs
 * beside `process.env`. Throws `NO_CHROMIUM` when there is none for the platform, and a one-line
 * error when the browser found does not start.
 * @returns {Promise<{ executablePath: string, env: Record<string, string> }>}
 */
export const findChromium = async () => {
  const named = process.env[CHROMIUM_VARIABLE];
  if (named !== undefined && named !== '') {
    if (!existsSync(named))
      throw new Error(`${CHROMIUM_VARIABLE} names ${named}, which is missing`);
    return { executablePath: named, env: {} };
  }
  if (platform() !== 'linux' || arch() !== 'x64') {
    const found = usualPaths().find((path) => existsSync(path));
    if (found === undefined) throw new Error(NO_CHROMIUM);
    return { executablePath: found, env: {} };
  }
  const dir = await unpackSparticuz();
  const executablePath = join(dir, 'chromium');
  /** @type {Record<string, string>} */
  let env = { FONTCONFIG_FILE: join(dir, 'fonts.conf') };
  let probe = await versionOf(executablePath, env);
  if (!probe.ok && /error while loading shared libraries/.test(probe.output)) {
    // A machine without NSS (a slim container): the libraries the package ships.
    const paths = [join(dir, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH];
    env = { ...env, LD_LIBRARY_PATH: paths.filter((path) => path).join(':') };
    probe = await versionOf(executablePath, env);
  }
  if (!probe.ok) {
    throw new Error(`${executablePath} does not start: ${probe.output.split('\n')[0]}`);
  }
  return { executablePath, env };
};

/** The options of a headless launch of the browser `findChromium` finds. */
const launchOptions = async () => {
  const { executablePath, env } = await findChromium();
  return {
    executablePath,
    headless: true,
    args: [...CHROMIUM_ARGS],
    env: { ...process.env, ...env },
  };
};

/** Launches the browser headless, for this process alone (bench/report.js). */
export const launchChromium = async () => chromium.launch(await launchOptions());

/**
 * Launches the browser headless as a server that other processes connect to with
 * `chromium.connect(server.wsEndpoint())` (the browser tests, see test/support/browser-setup.ts).
 * It listens on 127.0.0.1 only (playwright-core would listen on every interface), at a path
 * with a random part.
 */
export const launchChromiumServer = async () =>
  chromium.launchServer({ ...(await launchOptions()), host: '127.0.0.1' });
