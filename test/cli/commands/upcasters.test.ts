/**
 * `--upcasters MODULE` as a process: replay applies what only an upcaster
 * makes decodable (the example log's `sign-request-expired`), a bad module is
 * one line and exit 2 before anything is read, and `react` reacts once to an
 * event only an upcaster made applicable, and never again.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  envelope,
  removeTempDirs,
  requestEvent,
  runCli,
  tempDir,
  writeFixture,
} from '../cli-helpers.js';

afterAll(removeTempDirs);

const EXPIRED_AS_DECLINED = `export default [{
  name: 'expired-as-declined',
  from: 'sign-request-expired',
  to: ({ templateId, templateName, ...rest }) => ({ ...rest, type: 'sign-request-declined' }),
}];
`;

const module = async (name: string, text: string): Promise<string> => {
  const path = join(await tempDir(), name);
  await writeFile(path, text);
  return path;
};

const expiredLog = () =>
  writeFixture('events.ndjson', [
    envelope(1, requestEvent('sign-request-sent', 1000, true)),
    envelope(2, requestEvent('sign-request-expired', 1000, true)),
  ]);

const replayJson = async (log: string, ...args: string[]) => {
  const run = await runCli(['replay', log, '--json', ...args]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as {
    stats: { applied: number; invalid: number };
    signRequests: { id: number; status: string }[];
    quarantine: { position: number; reason: { kind: string; message: string } }[];
  };
};

describe('--upcasters MODULE', () => {
  it('replay applies a type only the upcaster maps to a known one', async () => {
    const log = await expiredLog();
    const upcasters = await module('upcasters.mjs', EXPIRED_AS_DECLINED);
    const without = await replayJson(log);
    expect(without.quarantine.map((q) => q.reason.kind)).toEqual(['invalid-event']);
    expect(without.signRequests.map((r) => r.status)).toEqual(['sent']);
    const upcast = await replayJson(log, '--upcasters', upcasters);
    expect(upcast.quarantine).toEqual([]);
    expect(upcast.stats).toMatchObject({ applied: 2, invalid: 0 });
    expect(upcast.signRequests.map((r) => r.status)).toEqual(['declined']);
    // inspect names the upcaster in the timeline.
    const inspected = await runCli([
      'inspect',
      log,
      '--sign-request',
      '1000',
      '--upcasters',
      upcasters,
    ]);
    expect(inspected.code).toBe(0);
    expect(inspected.stdout).toContain('sign-request-declined (upcast by expired-as-declined)');
  });

  it('refuses a snapshot taken without the upcasters (exit 2), and takes one taken with them', async () => {
    const log = await expiredLog();
    const upcasters = await module('upcasters.mjs', EXPIRED_AS_DECLINED);
    const dir = await tempDir();
    const old = join(dir, 'old.snapshot.json');
    expect((await runCli(['replay', log, '--snapshot', old])).code).toBe(0);
    const refused = await runCli(['replay', log, '--from-snapshot', old, '--upcasters', upcasters]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `signfold: ${old}: snapshot was folded with no upcasters, not "expired-as-declined"; this projector folds with fold rules 1, lenient decoding, upcasters "expired-as-declined": replay the log from the start (without the snapshot) and take a new one\n`,
    );
    const fresh = join(dir, 'new.snapshot.json');
    expect(
      (await runCli(['replay', log, '--upcasters', upcasters, '--snapshot', fresh])).code,
    ).toBe(0);
    const resumed = await replayJson(log, '--from-snapshot', fresh, '--upcasters', upcasters);
    expect(resumed.signRequests.map((r) => r.status)).toEqual(['declined']);
    expect(resumed.quarantine).toEqual([]);
  });

  it('quarantines, naming the upcaster, a record an upcaster throws on', async () => {
    const log = await expiredLog();
    const upcasters = await module(
      'throws.mjs',
      `export default [{ name: 'broken', from: 'sign-request-expired', to: () => { throw new Error('not yet'); } }];\n`,
    );
    const run = await replayJson(log, '--upcasters', upcasters);
    expect(run.quarantine).toEqual([
      expect.objectContaining({
        position: 2,
        reason: expect.objectContaining({ message: 'upcaster "broken" threw: not yet' }),
      }),
    ]);
  });

  it("prints an upcaster's error without the control characters it carries", async () => {
    const log = await expiredLog();
    const upcasters = await module(
      'hostile.mjs',
      "export default [{ name: 'hostile', from: 'sign-request-expired', to: () => { throw new Error('red \\u001b[31m\\nline\\u202e'); } }];\n",
    );
    for (const command of ['check', 'replay']) {
      const run = await runCli([command, log, '--upcasters', upcasters]);
      expect(run.stdout + run.stderr).toContain('upcaster "hostile" threw: red');
      // biome-ignore lint/suspicious/noControlCharactersInRegex: what must never reach a terminal.
      expect(run.stdout + run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/);
    }
  });

  it.each([
    [
      'a module that does not load',
      'syntax.mjs',
      'export default [\n',
      /^signfold: replay: cannot load .*syntax\.mjs: /,
    ],
    [
      'a default export that is not an array',
      'object.mjs',
      'export default {};\n',
      /must export an array of upcasters as its default export$/,
    ],
    [
      'a bad definition',
      'bad.mjs',
      "export default [{ name: 'x', from: 'a', to: 1 }];\n",
      /: upcaster 0: upcaster "x": to must be a function$/,
    ],
    [
      'two upcasters of one name',
      'twice.mjs',
      "const u = { name: 'x', from: 'a', to: (w) => w };\nexport default [u, u];\n",
      /: two upcasters are named "x"$/,
    ],
    [
      'a name with a control character',
      'escape.mjs',
      "export default [{ name: 'x\\u001b[31m', from: 'a', to: (w) => w }];\n",
      /: upcaster 0: upcaster name /,
    ],
  ])('refuses %s in one line, exit 2', async (_what, name, text, message) => {
    const log = await expiredLog();
    const path = await module(name, text);
    for (const command of [
      ['replay', log],
      ['check', log],
      ['react', log, '--reactors', path],
    ]) {
      const run = await runCli([...command, '--upcasters', path]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.endsWith('\n')).toBe(true);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: what must never reach a terminal.
      expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
      if (command[0] === 'replay') expect(run.stderr.trimEnd()).toMatch(message);
    }
  });

  it('serve takes --upcasters only with --reactors', async () => {
    const dir = await tempDir();
    const run = await runCli([
      'serve',
      '--log',
      join(dir, 'log.ndjson'),
      '--upcasters',
      'u.mjs',
      '--insecure-no-signature',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--upcasters needs --reactors/);
  });

  it('react reacts once to an event only the upcaster made applicable, and never again', async () => {
    const log = await expiredLog();
    const dir = await tempDir();
    const out = join(dir, 'effects.ndjson');
    await writeFile(out, '');
    const upcasters = await module('upcasters.mjs', EXPIRED_AS_DECLINED);
    const reactors = await module(
      'reactors.mjs',
      `import { appendFileSync } from 'node:fs';
export default [{
  name: 'on-declined',
  react: (change) =>
    change.event.type === 'sign-request-declined'
      ? [{ type: 'note', signRequestId: change.event.signRequestId, upcast: change.upcast ?? null }]
      : [],
  execute: (effect, context) => {
    appendFileSync(${JSON.stringify(out)}, JSON.stringify({ effect, key: context.idempotencyKey }) + '\\n');
  },
}];
`,
    );
    for (let run = 0; run < 2; run += 1) {
      const reacted = await runCli([
        'react',
        log,
        '--reactors',
        reactors,
        '--upcasters',
        upcasters,
        '--drain',
      ]);
      expect(reacted.code).toBe(0);
    }
    const lines = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      {
        effect: {
          type: 'note',
          signRequestId: 1000,
          upcast: { by: ['expired-as-declined'], index: 0, count: 1 },
        },
        key: expect.stringContaining('on-declined'),
      },
    ]);
  });
});
