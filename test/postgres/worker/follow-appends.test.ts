import { describe, expect, it } from 'vitest';
import { openPostgresEventLog } from '../../../src/postgres/log/postgres-event-log.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import { followAppends } from '../../../src/postgres/worker/follow-appends.js';
import { createProjectionWorker } from '../../../src/postgres/worker/projection-worker.js';
import { events } from '../../../src/testing/index.js';
import { throwawayPostgres } from '../../support/postgres-server.js';

const db = throwawayPostgres();

describe('followAppends', () => {
  it('projects an append announced while it was catching up at once, not at the next heartbeat', async () => {
    const schema = 'follow_during_catch_up';
    (await migrate(db.pool, { schema, partitions: 1 }))._unsafeUnwrap();
    const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
    (await log.append(events.signRequestSent({ signRequestId: 1 })))._unsafeUnwrap();
    let appendedAt = 0;
    let appendedPosition = 0;
    // The first batch appends while it is being projected: that append's
    // NOTIFY arrives during the catch-up, which read its high mark before it.
    const worker = (
      await createProjectionWorker(db.pool, {
        schema,
        // A heartbeat (a quarter of the lease) and a poll far longer than the wait below.
        leaseMs: 120_000,
        onFolded: async () => {
          if (appendedPosition !== 0) return;
          const sent = await log.append(events.signRequestSent({ signRequestId: 2 }));
          appendedPosition = sent._unsafeUnwrap().position;
          appendedAt = performance.now();
        },
      })
    )._unsafeUnwrap();
    const stop = new AbortController();
    let projectedAt = 0;
    const followed = followAppends(db.pool, worker, {
      signal: stop.signal,
      pollIntervalMs: 120_000,
      onBatch: (progress) => {
        if (appendedPosition !== 0 && progress.checkpoint >= appendedPosition) {
          projectedAt = performance.now();
          stop.abort();
        }
      },
    });
    // Well before the heartbeat (30 s) and the poll: only the announcement can be in time.
    const deadline = setTimeout(() => stop.abort(), 20_000);
    try {
      const progress = (await followed)._unsafeUnwrap();
      expect(appendedPosition).toBeGreaterThan(1);
      expect(progress.checkpoint).toBe(appendedPosition);
      expect(projectedAt - appendedAt).toBeLessThan(20_000);
    } finally {
      clearTimeout(deadline);
      stop.abort();
      await log.close();
    }
  });
});
