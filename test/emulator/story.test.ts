/**
 * The emulated service's stories: decided by the service's own rules, so every event is a §6.2
 * event that folds with no conflict, in an order that tells the whole story; the same seed gives
 * the same story; and the stories contain what a team needs to see (parallel and sequential
 * signing, completions, declines, deletions, requests left open, templates changing).
 */
import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../src/core/events/decode-event.js';
import { EVENT_MEMBERS } from '../../src/core/events/event-members.js';
import { initialState } from '../../src/core/projections/projection-state.js';
import { fold } from '../../src/core/projections/reduce.js';
import { decodeSignRequest } from '../../src/core/sign-request/decode-sign-request.js';
import { startEmulator } from '../../src/emulator/index.js';
import { playStory } from '../../src/emulator/story.js';

describe('the emulator’s stories', () => {
  const story = playStory({ seed: 7, requests: 60 });

  it('emit §6.2 events with the producer spelling, which fold with no conflict', () => {
    for (const { wire, event } of story.events) {
      const members = EVENT_MEMBERS[event.type].map((m) =>
        m === 'participantName' ? 'partcipantName' : m,
      );
      expect(Object.keys(wire)).toEqual(['type', ...members]);
      expect(
        decodeEvent(JSON.parse(JSON.stringify(wire)), { strict: true })._unsafeUnwrap(),
      ).toEqual(event);
    }
    const { conflicts, state } = fold(
      initialState(),
      story.events.map((e) => e.event),
    );
    expect(conflicts).toEqual([]);
    expect(state).toEqual(story.state);
  });

  it('contain every kind of event and ending', () => {
    const types = new Set(story.events.map((e) => e.event.type));
    expect([...types].sort()).toEqual(Object.keys(EVENT_MEMBERS).sort());
    const statuses = new Set([...story.state.signRequests.values()].map((r) => r.status));
    expect([...statuses].sort()).toEqual(['completed', 'declined', 'sent']);
    expect([...story.state.signRequests.values()].some((r) => r.deleted)).toBe(true);
    expect(new Set(story.requests.map((r) => r.signing))).toEqual(
      new Set(['parallel', 'sequential']),
    );
  });

  it('are the same for the same seed, and differ for another', () => {
    const again = playStory({ seed: 7, requests: 60 });
    expect(again.events.map((e) => e.wire)).toEqual(story.events.map((e) => e.wire));
    const other = playStory({ seed: 8, requests: 60 });
    expect(other.events.map((e) => e.wire)).not.toEqual(story.events.map((e) => e.wire));
  });

  it('sign sequential requests in role order: nobody is sent a request before those before have signed', () => {
    for (const request of story.requests.filter((r) => r.signing === 'sequential')) {
      const ordered = [...request.participants].sort((a, b) => a.role.sequence - b.role.sequence);
      const sentAt = ordered.map((p) =>
        story.events.findIndex(
          (e) => e.event.type === 'participant-sent' && e.event.participantId === p.id,
        ),
      );
      const signedAt = ordered.map((p) =>
        story.events.findIndex(
          (e) => e.event.type === 'participant-signed' && e.event.participantId === p.id,
        ),
      );
      for (let i = 1; i < ordered.length; i += 1) {
        if ((sentAt[i] ?? -1) >= 0) expect(sentAt[i]).toBeGreaterThan(signedAt[i - 1] ?? Infinity);
      }
    }
  });

  it('answer each request’s §2.1 representation, which decodes, and 404 once deleted', async () => {
    const emulator = await startEmulator({ seed: 7, requests: 12, apiPort: 0 });
    try {
      const truth = emulator.truth();
      expect(truth.signRequests.length).toBeGreaterThan(0);
      for (const request of truth.signRequests) {
        const answer = await fetch(`${emulator.apiUrl}/sign-requests/${request.id}`);
        if (request.deleted) {
          expect(answer.status).toBe(404);
          continue;
        }
        expect(answer.status).toBe(200);
        const body = (await answer.json()) as Record<string, unknown>;
        expect(decodeSignRequest(body).isOk()).toBe(true);
        expect(String(body.status).toLowerCase()).toBe(request.status);
        expect(body.savedTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      }
      const all = (await (await fetch(`${emulator.apiUrl}/sign-requests`)).json()) as unknown[];
      expect(all.length).toBe(truth.signRequests.filter((r) => !r.deleted).length);
      expect((await fetch(`${emulator.apiUrl}/sign-requests/1`)).status).toBe(404);
    } finally {
      await emulator.stop();
    }
  });
});
