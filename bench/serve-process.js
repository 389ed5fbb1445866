// Starts `node dist/cli/main.js serve …` as a real child process (bench/serve.js and the
// process-level tests in test/webhooks/serve-proof-*.test.ts), waits until it says it listens, and
// reports how it ended: the tests signal it (SIGTERM, SIGKILL, SIGSTOP/SIGCONT) like a process
// manager or the kernel would.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
/** The built CLI: the process runs exactly what `bin` installs. */
export const CLI = join(ROOT, 'dist/cli/main.js');

/**
 * The port `serve --port 0` bound, read from what it printed: an `http://HOST:PORT` address, a
 * `"port":N` member of a JSON line or `port N`, on a line that says it listens. Undefined until then.
 * @param {string} text
 */
export const listeningPort = (text) => {
  for (const line of text.split('\n')) {
    if (!/listen/i.test(line)) continue;
    const found =
      /https?:\/\/[^\s/"]*:(\d+)/.exec(line) ??
      /"port"\s*:\s*(\d+)/.exec(line) ??
      /\bport\s+(\d+)/i.exec(line);
    if (found !== null) return Number(found[1]);
  }
  return undefined;
};

/**
 * Starts `serve` with `args` (`--port 0` added unless `args` name a port) and resolves once it
 * listens, with its port, URL of `/webhooks`, output so far and its end; rejects with everything it
 * printed if it exits first or does not listen within `startMs` (then it is killed first).
 * @param {readonly string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, startMs?: number }} [options]
 */
export const startServe = (args, { env = {}, startMs = 20_000 } = {}) => {
  const argv = args.includes('--port') ? [...args] : [...args, '--port', '0'];
  const child = spawn(process.execPath, [CLI, 'serve', ...argv], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, at: performance.now() }));
  });
  let listened = false;
  const listening = new Promise((resolve, reject) => {
    const check = () => {
      const port = listeningPort(`${stdout}\n${stderr}`);
      if (port === undefined) return;
      listened = true;
      resolve(port);
    };
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
      check();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
      check();
    });
    child.on('error', reject);
    void exited.then(({ code, signal }) =>
      reject(
        Object.assign(new Error(`serve exited (${code ?? signal}) before listening:\n${stderr}`), {
          code,
          stdout,
          stderr,
        }),
      ),
    );
    setTimeout(() => {
      if (listened) return;
      // Whoever waited for it gets no handle to stop it: it is stopped here, not left running.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      reject(new Error(`serve did not listen within ${startMs} ms:\n${stdout}${stderr}`));
    }, startMs).unref();
  });
  return listening.then((port) => ({
    child,
    port,
    url: `http://127.0.0.1:${port}/webhooks`,
    base: `http://127.0.0.1:${port}`,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    /** Sends `signal` and resolves with how the process ended. */
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  }));
};

/**
 * Runs `serve` with `args` to its end (for a refusal at start-up: a locked log, a missing secret)
 * and resolves with its exit code and output. Kills it after `limitMs` if it listens instead.
 * @param {readonly string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, limitMs?: number }} [options]
 */
export const runServeToEnd = (args, { env = {}, limitMs = 20_000 } = {}) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('error', reject);
    // `close`, not `exit`: every byte it printed has been read by then.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
