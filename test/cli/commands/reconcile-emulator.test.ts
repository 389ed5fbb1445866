/**
 * Issue 30's proof of the repair, end to end against the emulator of the
 * service (signfold/emulator): `serve` receives a story through a channel that
 * loses 5 % of the deliveries and reorders 20 %, `reconcile` asks the
 * emulator's read API,
 * and afterwards every request and participant the API can report equals the
 * service's truth; a second `reconcile` appends nothing; and `react` sends
 * no reminder to a participant whose signature was received before the
 * reminder was due, repairs included.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Change } from '../../../src/core/reactors/reactor-types.js';
import { startEmulator } from '../../../src/emulator/index.js';
import { createProjector } from '../../../src/engine/projector.js';
import { readFileEventLog } from '../../../src/store/file-record-stream.js';
import { startHttpSink } from '../../support/http-sink.js';
import { SIMULATOR_FETCH_MODULE } from '../../support/simulator-fetch.js';
import { truthDifferences } from '../../support/truth-differences.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli-helpers.js';
import { SECRET, startServe } from '../serve/serve-process.js';

afterAll(removeTempDirs);

const SINK_REACTORS = join(ROOT, 'test/fixtures/reactors/sink-reactors.mjs');
const REMIND_AFTER_MS = 1000;

const replayOf = async (path: string, onApplied?: (change: Change) => void) => {
  const projector = createProjector({ policy: 'skip', ...(onApplied ? { onApplied } : {}) });
  (await projector.replay({ read: (o) => readFileEventLog(path, o) }))._unsafeUnwrap();
  return projector;
};

describe('serve + reconcile + react against the emulator of the service', () => {
  it('heals every loss the API can show, appends nothing the second time, and reminds no one who had signed', async () => {
    const sink = await startHttpSink();
    const path = join(await tempDir(), 'events.ndjson');
    const serve = await startServe(['--log', path]);
    const emulator = await startEmulator({
      to: `${serve.url}/webhooks`,
      secret: SECRET,
      seed: 396,
      requests: 60,
      loss: 0.05,
      reorder: 0.2,
      duplicate: 0.05,
      timeoutMs: 15_000,
      apiPort: 0,
    });
    try {
      try {
        const counts = await emulator.delivered;
        expect(counts).toMatchObject({ givenUp: 0 });
        expect(counts.lost).toBeGreaterThan(0);
        expect(counts.reordered).toBeGreaterThan(0);
      } finally {
        expect((await serve.stop()).code).toBe(0);
      }

      const before = await replayOf(path);
      const truth = emulator.truth();
      // The API answers 404 for a deleted request: a lost deletion cannot be healed through it.
      const deletedInTruth = new Set(truth.signRequests.filter((r) => r.deleted).map((r) => r.id));
      // Nor a lost template event: the service's interface shows no template representation.
      const unhealable = (line: string) =>
        line.startsWith('template ') ||
        [...deletedInTruth].some((id) => line.startsWith(`request ${id}:`));
      expect(
        truthDifferences(before.state(), truth).filter((l) => !unhealable(l)).length,
      ).toBeGreaterThan(0);

      const env = { ...process.env, SIGNFOLD_SIMULATOR_URL: emulator.apiUrl };
      const known = [...before.state().signRequests.values()].filter((r) => !r.deleted);
      const ids = known.flatMap((r) => ['--sign-request', String(r.id)]);
      const args = ['reconcile', path, '--fetch', SIMULATOR_FETCH_MODULE, '--rate', '200', ...ids];
      const first = await runCli(args, ROOT, env);
      expect(first.stderr).toBe('');
      // Exit 1 only for the requests deleted at the service whose deletion was lost (404).
      const failed = first.stdout.split('\n').filter((line) => line.includes(': failed: '));
      for (const line of failed) {
        expect(line).toMatch(/^sign request (\d+): failed: fetch failed: .*404/);
        expect(deletedInTruth.has(Number(/^sign request (\d+)/.exec(line)?.[1]))).toBe(true);
      }
      expect(first.code).toBe(failed.length > 0 ? 1 : 0);
      expect(first.stdout).toMatch(/: repaired at position \d+: /);

      const after = await replayOf(path);
      expect(truthDifferences(after.state(), truth).filter((l) => !unhealable(l))).toEqual([]);

      const stored = await readFile(path, 'utf8');
      const second = await runCli(args, ROOT, env);
      expect(second.stdout).not.toMatch(/: repaired/);
      expect(await readFile(path, 'utf8')).toBe(stored);

      // The reminders the rules of docs/reactors.md ("Timers and keys") leave scheduled, per
      // participant, from the log (repairs included), in event time only: a participant-sent
      // received at r schedules one due at r + REMIND_AFTER_MS and, like a signature or a decline
      // received at r, cancels that participant's timers due after r; one due at or before r was
      // due before the event happened, and fires.
      const scheduled = new Map<string, number[]>();
      const repairedEvents: string[] = [];
      await replayOf(path, ({ event, receivedAt, observation }) => {
        if (observation !== undefined) repairedEvents.push(event.type);
        if (!('participantId' in event)) return;
        const who = `${event.signRequestId}/${event.participantId}`;
        const at = receivedAt === undefined ? undefined : Date.parse(receivedAt);
        const kept = (scheduled.get(who) ?? []).filter((due) => at !== undefined && due <= at);
        if (event.type === 'participant-sent' && at !== undefined) {
          scheduled.set(who, [...kept, at + REMIND_AFTER_MS]);
        } else if (event.type === 'participant-signed' || event.type === 'participant-declined') {
          scheduled.set(who, kept);
        }
      });
      const react = await runCli(['react', path, '--reactors', SINK_REACTORS, '--drain'], ROOT, {
        ...env,
        SIGNFOLD_SINK_URL: sink.url,
        SINK_REMIND_AFTER_MS: String(REMIND_AFTER_MS),
      });
      expect(react.code).toBe(0);
      // The seed's losses hid signatures and completions, which the repairs stand for.
      expect(repairedEvents).toContain('participant-signed');
      expect(repairedEvents).toContain('sign-request-completed');
      const reminders = sink.calls.filter((call) => call.key.startsWith('reminders:'));
      // Some are really due (participants who never acted): those still go out.
      expect(reminders.length).toBeGreaterThan(0);
      // A signature or a decline received before a reminder was due cancels it: none may go out.
      const remindedKeys = new Map<string, Set<string>>();
      for (const call of reminders) {
        const who = `${call.body.signRequestId}/${call.body.participantId}`;
        remindedKeys.set(who, (remindedKeys.get(who) ?? new Set()).add(call.key));
      }
      for (const [who, keys] of remindedKeys) {
        expect(keys.size, `reminders to ${who}`).toBeLessThanOrEqual(
          scheduled.get(who)?.length ?? 0,
        );
      }
      // Each completion, delivered or repaired, fetched its document once.
      const documents = sink.calls.filter((call) => call.key.startsWith('documents:'));
      const completed = [...after.state().signRequests.values()].filter(
        (r) => r.status === 'completed',
      );
      expect(new Set(documents.map((call) => call.body.signRequestId)).size).toBe(completed.length);
      expect(new Set(documents.map((call) => call.key)).size).toBe(documents.length);
    } finally {
      await sink.close();
      await emulator.stop();
    }
  });
});
