import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeThrown } from '../../src/cli/cli-error.js';
import { forbiddenIn } from '../support/terminal-safety.js';
import { ROOT, removeTempDirs, tempDir } from './cli-helpers.js';

// The executable is one bundle (scripts/build.js): the crash handler is bundled here alone, from
// the same source, to be installed in a bare Node process.
let handler: string;
beforeAll(async () => {
  handler = join(await tempDir(), 'crash.mjs');
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(ROOT, 'src/cli/crash.ts')],
    outfile: handler,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
});
// esbuild's service is a child process: it must end with the file (test/support/process-fixture.ts).
afterAll(async () => {
  await (await import('esbuild')).stop();
  await removeTempDirs();
});

/** Runs `code` in a fresh Node process after installing the crash handler. */
const crash = (code: string, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stderr: string }>((done, fail) => {
    const url = pathToFileURL(handler).href;
    const script = `import { installCrashHandler } from ${JSON.stringify(url)};
installCrashHandler(process, process.env.SIGNFOLD_DEBUG === '1');
${code}`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', fail);
    child.on('close', (exit) => done({ code: exit, stderr }));
  });

const revokedProxy = (): object => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};

describe('describeThrown', () => {
  it.each([
    ['an Error', new Error('disk on fire'), 'disk on fire'],
    ['a multi-line message', new Error('first\n  second\r\nthird'), 'first second third'],
    ['an Error without a message', new TypeError(), 'TypeError'],
    ['a string', 'plain string', 'plain string'],
    ['null', null, 'null'],
    ['undefined', undefined, 'undefined'],
    ['a number', 42, '42'],
    ['an object without a prototype', Object.create(null), '[object Object]'],
    [
      'an object whose toString throws',
      {
        toString() {
          throw new Error('no');
        },
      },
      '[object Object]',
    ],
    [
      'an Error whose message getter throws',
      Object.defineProperty(new Error('x'), 'message', {
        get() {
          throw new Error('no');
        },
      }),
      '[object Error]',
    ],
    ['a revoked proxy', revokedProxy(), '(unprintable object)'],
    ['an empty string', '', '(empty string)'],
  ])('describes %s on one line without throwing', (_name, value, expected) => {
    expect(describeThrown(value)).toBe(expected);
  });
});

describe('the crash handler of the signfold process', () => {
  it.each([
    ['null', 'null', 'null'],
    ['a string', "'boom'", 'boom'],
    ['an object without a prototype', 'Object.create(null)', '[object Object]'],
    [
      'an Error whose message getter throws',
      "Object.defineProperty(new Error('x'), 'message', { get() { throw new Error('no'); } })",
      '[object Error]',
    ],
    ['an Error', "new Error('line one\\nline two')", 'line one line two'],
  ])('reports a thrown %s as one line, exit 2', async (_name, thrown, described) => {
    const run = await crash(`setTimeout(() => { throw ${thrown}; }, 0);`);
    expect(run.stderr).toBe(`signfold: unexpected error: ${described}\n`);
    expect(run.code).toBe(2);
  });

  it('reports an unhandled rejection of a non-Error as one line, exit 2', async () => {
    const run = await crash('Promise.reject(null);');
    expect(run.stderr).toMatch(/^signfold: unexpected error: [^\n]*"null"[^\n]*\n$/);
    expect(run.code).toBe(2);
  });

  it('adds the stack with SIGNFOLD_DEBUG=1, when there is one', async () => {
    const run = await crash("setTimeout(() => { throw new Error('boom'); }, 0);", {
      SIGNFOLD_DEBUG: '1',
    });
    expect(run.stderr).toMatch(/^signfold: unexpected error: boom\nError: boom\n\s+at /);
    expect(run.code).toBe(2);
    const plain = await crash('setTimeout(() => { throw null; }, 0);', { SIGNFOLD_DEBUG: '1' });
    expect(plain.stderr).toBe('signfold: unexpected error: null\n');
  });

  it('escapes control and bidi characters of the message, in the stack too', async () => {
    const run = await crash(
      "setTimeout(() => { throw new Error('bad \\u001b[2J \\u009b \\u202e \\u007f'); }, 0);",
      { SIGNFOLD_DEBUG: '1' },
    );
    expect(run.stderr).toMatch(
      /^signfold: unexpected error: bad \\u001b\[2J \\u009b \\u202e \\u007f\nError: bad \\u001b\[2J/,
    );
    expect(forbiddenIn(run.stderr)).toEqual([]);
    expect(run.code).toBe(2);
  });
});
