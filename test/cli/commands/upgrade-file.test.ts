/**
 * An upgrade of a live system on a file log: `serve --log` under steady
 * deliveries, `react` following without upcasters, then `react` restarted
 * with an upcaster while deliveries go on. Nothing is lost or stored twice,
 * the reactor fires exactly one effect for each event only the upcaster made
 * applicable (and one for every other decline, never two), the replay with
 * the upcaster applies everything, and a snapshot taken before the upgrade is
 * refused by it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, requestEvent, runCli, startCli, tempDir } from '../cli-helpers.js';
import { deliver, eventually, secretEnv, startServe } from '../serve/serve-process.js';

afterAll(removeTempDirs);

const UPCASTERS = `export default [{
  name: 'expired-as-declined',
  from: 'sign-request-expired',
  to: ({ templateId, templateName, ...rest }) => ({ ...rest, type: 'sign-request-declined' }),
}];
`;

const reactorsWriting = (out: string): string => `import { appendFileSync } from 'node:fs';
export default [{
  name: 'on-declined',
  react: (change) =>
    change.event.type === 'sign-request-declined'
      ? [{ type: 'note', position: change.position, id: change.event.signRequestId, upcast: change.upcast !== undefined }]
      : [],
  execute: (effect, context) => {
    appendFileSync(${JSON.stringify(out)}, JSON.stringify({ ...effect, key: context.idempotencyKey }) + '\\n');
  },
}];
`;

/** `signfold react ...args` in the background; `exit` resolves with its exit code. */
const startReact = (args: readonly string[]) => {
  const { child, closed } = startCli(['react', ...args]);
  return { child, exit: closed.then(({ code }) => code) };
};

const linesOf = async (path: string): Promise<Record<string, unknown>[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const REQUESTS = 60;

describe('upgrading a live file log', () => {
  it('reacts once to what only the new upcaster applies, loses and doubles nothing', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const out = join(dir, 'effects.ndjson');
    const upcasters = join(dir, 'upcasters.mjs');
    const reactors = join(dir, 'reactors.mjs');
    await writeFile(out, '');
    await writeFile(upcasters, UPCASTERS);
    await writeFile(reactors, reactorsWriting(out));
    const serve = await startServe(['--log', log], secretEnv());
    let react = startReact([log, '--reactors', reactors]);
    const accepted: string[] = [];
    const expired = new Set<number>();
    const declined = new Set<number>();
    try {
      for (let k = 0; k < REQUESTS; k += 1) {
        const id = 2000 + k;
        // Every third request expires: a type this version does not know.
        const last = k % 3 === 0 ? 'sign-request-expired' : 'sign-request-declined';
        (last === 'sign-request-expired' ? expired : declined).add(id);
        const pair = [
          requestEvent('sign-request-sent', id, true),
          requestEvent(last, id, last === 'sign-request-expired'),
        ];
        for (const [i, event] of pair.entries()) {
          const deliveryId = `d-${id}-${i}`;
          const answer = await deliver(serve.url, JSON.stringify(event), {
            'x-delivery-id': deliveryId,
          });
          expect(answer.status).toBe(200);
          accepted.push(deliveryId);
        }
        if (k === REQUESTS / 2) {
          // The old version has reacted to what it could; a snapshot is taken under it.
          await eventually(
            async () => (await linesOf(out)).length >= [...declined].filter((d) => d < id).length,
            'the old reactor to catch up',
          );
          expect(
            (await runCli(['replay', log, '--snapshot', join(dir, 'old.snapshot.json')])).code,
          ).toBe(0);
          react.child.kill('SIGTERM');
          expect(await react.exit).toBe(0);
          react = startReact([log, '--reactors', reactors, '--upcasters', upcasters]);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await eventually(
        async () => (await linesOf(out)).length >= REQUESTS,
        'one effect per declined or expired request',
      );
      // Nothing more arrives once everything is reacted to (a double would come in its place).
      await new Promise((resolve) => setTimeout(resolve, 600));
    } finally {
      react.child.kill('SIGTERM');
      expect(await react.exit).toBe(0);
      expect((await serve.stop()).code).toBe(0);
    }
    const stored = await linesOf(log);
    expect(stored.map((record) => record.deliveryId).sort()).toEqual([...accepted].sort());
    const effects = await linesOf(out);
    expect(effects).toHaveLength(REQUESTS);
    expect(new Set(effects.map((e) => e.key)).size).toBe(REQUESTS);
    expect(
      effects
        .filter((e) => e.upcast === true)
        .map((e) => e.id)
        .sort(),
    ).toEqual([...expired].sort());
    expect(
      effects
        .filter((e) => e.upcast === false)
        .map((e) => e.id)
        .sort(),
    ).toEqual([...declined].sort());

    const replayed = await runCli(['replay', log, '--upcasters', upcasters, '--json']);
    expect(replayed.code).toBe(0);
    const state = JSON.parse(replayed.stdout) as {
      quarantine: unknown[];
      signRequests: { status: string }[];
    };
    expect(state.quarantine).toEqual([]);
    expect(state.signRequests).toHaveLength(REQUESTS);
    expect(state.signRequests.every((r) => r.status === 'declined')).toBe(true);
    const stale = await runCli([
      'replay',
      log,
      '--from-snapshot',
      join(dir, 'old.snapshot.json'),
      '--upcasters',
      upcasters,
    ]);
    expect(stale.code).toBe(2);
    expect(stale.stderr).toContain('snapshot was folded with no upcasters');
    // A second run of the new version has nothing left to do.
    const again = await runCli([
      'react',
      log,
      '--reactors',
      reactors,
      '--upcasters',
      upcasters,
      '--drain',
    ]);
    expect(again.code).toBe(0);
    expect(await linesOf(out)).toHaveLength(REQUESTS);
  });
});
