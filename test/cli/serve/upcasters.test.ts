/**
 * `serve --log FILE --reactors MODULE --upcasters MODULE`: deliveries are
 * stored as received, and the server's reactors react to what the upcasters
 * make of them (a `sign-request-expired` delivery reacted to as declined).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, requestEvent, tempDir } from '../cli-helpers.js';
import { deliver, eventually, secretEnv, startServe } from './serve-process.js';

afterAll(removeTempDirs);

describe('serve --reactors --upcasters', () => {
  it('stores a delivery as received and reacts to what the upcasters make of it', async () => {
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    const out = join(dir, 'effects.ndjson');
    await writeFile(out, '');
    const upcasters = join(dir, 'upcasters.mjs');
    await writeFile(
      upcasters,
      `export default [{
  name: 'expired-as-declined',
  from: 'sign-request-expired',
  to: ({ templateId, templateName, ...rest }) => ({ ...rest, type: 'sign-request-declined' }),
}];
`,
    );
    const reactors = join(dir, 'reactors.mjs');
    await writeFile(
      reactors,
      `import { appendFileSync } from 'node:fs';
export default [{
  name: 'on-declined',
  react: (change) => (change.event.type === 'sign-request-declined' ? [{ type: 'note', by: change.upcast?.by ?? null }] : []),
  execute: (effect) => { appendFileSync(${JSON.stringify(out)}, JSON.stringify(effect) + '\\n'); },
}];
`,
    );
    const serve = await startServe(
      ['--log', log, '--reactors', reactors, '--upcasters', upcasters],
      secretEnv(),
    );
    try {
      const sent = requestEvent('sign-request-sent', 1000, true);
      const expired = requestEvent('sign-request-expired', 1000, true);
      for (const [i, event] of [sent, expired].entries()) {
        const answer = await deliver(serve.url, JSON.stringify(event), {
          'x-delivery-id': `d-${i}`,
        });
        expect(answer.status).toBe(200);
      }
      await eventually(
        async () => (await readFile(out, 'utf8')) !== '',
        'the effect of the upcast event',
      );
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
    expect(
      (await readFile(out, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([{ type: 'note', by: ['expired-as-declined'] }]);
    // Stored as received: the log is never rewritten.
    expect(await readFile(log, 'utf8')).toContain('"type":"sign-request-expired"');
  });
});
