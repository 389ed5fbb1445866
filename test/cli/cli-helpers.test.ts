/**
 * `runCli` runs a command in the test's process when it can, with the environment the test
 * gave it for the length of the run, and in a process of its own when it cannot: most CLI tests
 * rest on it seeing what a process of its own would see.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sentEvent } from '../otel/trace-spans.js';
import { removeTempDirs, runCli, tempDir, writeFixture } from './cli-helpers.js';

afterAll(removeTempDirs);

/** What a reactor saw in the process that ran it. */
interface Seen {
  readonly pid: number;
  readonly probe: string | null;
}

/**
 * A log of one delivery with a reactor of its own that writes down, for the delivery, the pid
 * and `SIGNFOLD_PROBE` of the process running it; `run(env)` calls `runCli` at once (so runs
 * started one after another reach it in that order) with `react --drain` on it, and resolves
 * with what the reactor saw.
 */
const prepareProbe = async (): Promise<{ run(env: NodeJS.ProcessEnv): Promise<Seen> }> => {
  const dir = await tempDir();
  const reactors = join(dir, 'probe-reactors.mjs');
  await writeFile(
    reactors,
    `import { writeFileSync } from 'node:fs';
export default [{
  name: 'probe',
  react: () => {
    const seen = { pid: process.pid, probe: process.env.SIGNFOLD_PROBE ?? null };
    writeFileSync(new URL('./seen.json', import.meta.url), JSON.stringify(seen));
    return [];
  },
  execute: async () => {},
}];
`,
  );
  const log = await writeFixture('one.ndjson', [
    `{"position":1,"receivedAt":"2026-01-01T00:00:00.000Z","deliveryId":"probe-1","event":${sentEvent(1)}}`,
  ]);
  return {
    run: async (env) => {
      const run = await runCli(['react', log, '--reactors', reactors, '--drain'], undefined, env);
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(await readFile(join(dir, 'seen.json'), 'utf8')) as Seen;
    },
  };
};

/** Runs a fresh probe with this process's environment plus `vars`. */
const probe = async (vars: Record<string, string>): Promise<Seen> =>
  (await prepareProbe()).run({ ...process.env, ...vars });

describe('runCli with an environment', () => {
  it('runs in this process, the environment given for the run and taken back after it', async () => {
    process.env.SIGNFOLD_PROBE_KEPT = 'kept';
    try {
      const { SIGNFOLD_PROBE_KEPT: _, ...without } = process.env;
      const kept = await (await prepareProbe()).run({ ...without, SIGNFOLD_PROBE: 'one' });
      expect(kept).toEqual({ pid: process.pid, probe: 'one' });
      expect(process.env.SIGNFOLD_PROBE).toBeUndefined();
      expect(process.env.SIGNFOLD_PROBE_KEPT).toBe('kept');
    } finally {
      delete process.env.SIGNFOLD_PROBE_KEPT;
    }
  });

  it('gives a run a process of its own while another run here holds another environment', async () => {
    const [first, second, third] = await Promise.all([
      prepareProbe(),
      prepareProbe(),
      prepareProbe(),
    ]);
    const [one, two, again] = await Promise.all([
      first.run({ ...process.env, SIGNFOLD_PROBE: 'one' }),
      second.run({ ...process.env, SIGNFOLD_PROBE: 'two' }),
      third.run({ ...process.env, SIGNFOLD_PROBE: 'one' }),
    ]);
    expect(one).toEqual({ pid: process.pid, probe: 'one' });
    expect(two.probe).toBe('two');
    expect(two.pid).not.toBe(process.pid);
    expect(again).toEqual({ pid: process.pid, probe: 'one' });
    expect(process.env.SIGNFOLD_PROBE).toBeUndefined();
  });

  it('gives a run a process of its own when its environment sets Node up otherwise', async () => {
    const seen = await probe({ NODE_OPTIONS: '--no-warnings', SIGNFOLD_PROBE: 'node' });
    expect(seen.probe).toBe('node');
    expect(seen.pid).not.toBe(process.pid);
  });
});
