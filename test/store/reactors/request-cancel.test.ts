/**
 * A reactor that sees the whole request (docs/reactors.md, "One cancel for a
 * whole request"), on the file engine: a decline cancels every reminder of
 * its request with one prefix cancel, no other request's (`remind:1/` beside
 * `remind:10/`), and the note it sends lists the request's participants from
 * `change.state`, as a fold of the log up to the decline gives them.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SignEvent } from '../../../src/core/events/sign-event.js';
import { signRequestId } from '../../../src/core/ids.js';
import { initialState, listParticipants } from '../../../src/core/projections/projection-state.js';
import { fold } from '../../../src/core/projections/reduce.js';
import { defineReactor } from '../../../src/core/reactors/define-reactor.js';
import type { ReactorDefinition } from '../../../src/core/reactors/reactor-types.js';
import { createFileReactorRunner } from '../../../src/store/reactors/file-reactor-runner.js';
import { ROOT } from '../../cli/cli-helpers.js';
import { removeTempDirs, tempDir } from '../../reliability/fixtures/reliability-helpers.js';
import { startHttpSink } from '../../support/http-sink.js';
import { requestReminders } from '../../support/reminder-rules.js';
import { seededStoryLog, writeStoryLog } from '../../support/story-log.js';

afterAll(removeTempDirs);

const HOUR = 3600 * 1000;
const FIXTURE = join(ROOT, 'test/fixtures/reactors/request-reminders.mjs');

describe('one cancel for a whole request (file engine)', () => {
  it('a decline cancels every reminder of its request and no other; its note lists the participants from change.state', async () => {
    const events = seededStoryLog(71, 30, { ending: 'declined' });
    const log = join(await tempDir(), 'events.ndjson');
    await writeStoryLog(log, events);
    const definitions = (await import(FIXTURE)).default as ReactorDefinition[];
    const sink = await startHttpSink();
    const previous = process.env.SIGNFOLD_SINK_URL;
    process.env.SIGNFOLD_SINK_URL = sink.url;
    try {
      const run = await createFileReactorRunner({
        logPath: log,
        reactors: definitions.map((definition) => defineReactor(definition)),
        drain: true,
      }).run();
      expect(run.isOk()).toBe(true);
    } finally {
      process.env.SIGNFOLD_SINK_URL = previous;
      await sink.close();
    }
    const fired = sink.calls
      .filter((call) => call.body.type === 'remind')
      .map((call) => `${call.body.signRequestId}/${call.body.participantId}`);
    const expected = requestReminders(events, 72 * HOUR);
    expect(fired.sort()).toEqual(expected.sort());
    // Not vacuous: some requests lost every reminder to a decline, others kept some.
    const declined = new Set(
      events
        .filter((e) => e.event.type === 'participant-declined')
        .map((e) => e.event.signRequestId),
    );
    expect(declined.size).toBeGreaterThan(3);
    expect(declined.has(1) || declined.has(10) || declined.has(11)).toBe(true);
    expect(fired.length).toBeGreaterThan(3);

    // The notes: one per decline, each listing the request's participants as a fold of the log
    // up to that event has them.
    const notes = sink.calls.filter((call) => call.body.type === 'declined-note');
    const declines = events.filter(
      (e) => e.event.type === 'participant-declined' || e.event.type === 'sign-request-declined',
    );
    expect(notes.map((call) => Number(call.key.split(':')[1])).sort((a, b) => a - b)).toEqual(
      declines.map((e) => e.position),
    );
    for (const note of notes) {
      const position = Number(note.key.split(':')[1]);
      const upTo = events.slice(0, position).map((e) => e.event as unknown as SignEvent);
      const { state } = fold(initialState(), upTo);
      const id = signRequestId(Number(note.body.signRequestId));
      expect(note.body.participants).toEqual(
        [...listParticipants(state, id)].map((p) => `${p.id}:${p.status}`),
      );
    }
  });
});
