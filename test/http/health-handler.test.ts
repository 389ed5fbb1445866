/**
 * `createHealthHandler` mounted in Hono and in node:http: the answers of
 * `signfold serve`'s `/healthz` and `/readyz` (a reason when not ready, a
 * throw included), 405 for another method, 404 for another path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHealthHandler } from '../../src/http/health-handler.js';
import { MOUNTS, type Mounted } from './fixtures/mount.js';

describe.each(Object.keys(MOUNTS) as (keyof typeof MOUNTS)[])('mounted in %s', (name) => {
  let reason: string | Error | undefined;
  let mounted: Mounted;
  beforeAll(async () => {
    const health = createHealthHandler({
      ready: async () => {
        if (reason instanceof Error) throw reason;
        return reason;
      },
    });
    mounted = await MOUNTS[name](health);
  });
  afterAll(async () => {
    await mounted?.close();
  });

  const answer = async (path: string, method = 'GET') => {
    const response = await fetch(`${mounted.url}${path}`, { method });
    return [response.status, await response.text(), response.headers.get('allow')] as const;
  };

  it('answers /healthz and /readyz as serve does', async () => {
    reason = undefined;
    expect(await answer('/healthz')).toEqual([200, '{"status":"ok"}\n', null]);
    expect(await answer('/readyz?probe=1')).toEqual([200, '{"status":"ready"}\n', null]);
    reason = 'storage unavailable';
    expect(await answer('/readyz')).toEqual([
      503,
      '{"status":"unavailable","reason":"storage unavailable"}\n',
      null,
    ]);
    reason = new Error('the probe failed');
    expect(await answer('/readyz')).toEqual([
      503,
      '{"status":"unavailable","reason":"the probe failed"}\n',
      null,
    ]);
  });

  it('answers another method 405 and another path 404', async () => {
    expect(await answer('/healthz', 'POST')).toEqual([405, '{"error":"use GET"}\n', 'GET, HEAD']);
    expect(await answer('/elsewhere')).toEqual([404, '{"error":"not found"}\n', null]);
  });
});
