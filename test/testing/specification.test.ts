/** signfold/testing: the given/when/then specification and its failure messages. */
import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { signRequestId } from '../../src/core/ids.js';
import { encodeEvent, getSignRequest } from '../../src/index.js';
import { events, given } from '../../src/testing/index.js';

/** The AssertionError `run` throws (fails the test if it throws nothing or something else). */
const failureOf = (run: () => unknown): AssertionError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AssertionError);
    return error as AssertionError;
  }
  throw new Error('expected an AssertionError, nothing was thrown');
};

const sent = events.signRequestSent();
const toAda = events.participantSent();

describe('given / when / then', () => {
  it('checks the records after an applied event, chaining checks', () => {
    const outcome = given(events.templateActivated(), sent, toAda)
      .when(events.participantSigned())
      .thenApplied()
      .thenParticipant(1000, 5, { status: 'signed', viewCount: 0 })
      .thenSignRequest(1000, { status: 'sent', templateId: 100 })
      .thenTemplate(100, { status: 'active' });
    expect(getSignRequest(outcome.state, signRequestId(1000))?.status).toBe('sent');
    expect(outcome.result.isOk()).toBe(true);
  });

  it('accepts wire objects and wire JSON text, as the service sends them', () => {
    given(encodeEvent(sent), JSON.stringify(encodeEvent(toAda)))
      .when(JSON.stringify({ ...encodeEvent(events.participantDeclined()) }))
      .thenParticipant(1000, 5, { status: 'declined' });
  });

  it('checks a conflict by any of its members, and that the state was left as it was', () => {
    const spec = given(sent, events.signRequestDeclined());
    const outcome = spec
      .when(events.signRequestCompleted())
      .thenConflict({ kind: 'invalid-transition', entity: 'sign-request', id: 1000 })
      .thenConflict()
      .thenSignRequest(1000, { status: 'declined' });
    expect(outcome.state).toBe(spec.state);
  });

  it('checks a no-op: the very same state', () => {
    given(sent).when(sent).thenNoOp();
  });

  it('checks that a record is absent', () => {
    given(sent)
      .thenNoSignRequest(1001)
      .when(events.signRequestSent({ signRequestId: 1001 }));
    const failure = failureOf(() => given(sent).thenNoSignRequest(1000));
    expect(failure.message).toMatch(/^sign request 1000 is in the state: /);
  });

  it('names the members that differ, shows the whole record and the events', () => {
    const failure = failureOf(() =>
      given(sent, toAda)
        .when(events.participantViewed())
        .thenParticipant(1000, 5, { status: 'signed', viewCount: 1 }),
    );
    const lines = failure.message.split('\n');
    expect(lines[0]).toBe('participant 5 of sign request 1000 does not match: status differs');
    expect(lines[1]).toBe("expected (members compared): { status: 'signed', viewCount: 1 }");
    expect(lines[2]).toMatch(/^actual record: +\{ .*status: 'viewed'.*viewCount: 1/);
    expect(lines[3]).toBe('given:');
    expect(lines[4]).toMatch(/^ {2}1\. sign-request-sent \{"companyId":1,"signRequestId":1000,/);
    expect(lines[5]).toMatch(/^ {2}2\. participant-sent \{/);
    expect(lines[6]).toBe('when:');
    expect(lines[7]).toMatch(/^ {2}participant-viewed \{"companyId":1,/);
    expect(failure.actual).toEqual({ status: 'viewed', viewCount: 1 });
    expect(failure.expected).toEqual({ status: 'signed', viewCount: 1 });
  });

  it('agrees the verb with the number of members that differ', () => {
    const failure = failureOf(() =>
      given(sent, toAda)
        .when(events.participantViewed())
        .thenParticipant(1000, 5, { status: 'signed', viewCount: 2 }),
    );
    expect(failure.message.split('\n')[0]).toBe(
      'participant 5 of sign request 1000 does not match: status, viewCount differ',
    );
  });

  it('fails when the record is missing', () => {
    const failure = failureOf(() => given().thenTemplate(100, { status: 'active' }));
    expect(failure.message).toBe('template 100 is not in the state\ngiven: (no events)');
  });

  it('fails a conflict expectation when the event applied, or conflicted differently', () => {
    const applied = failureOf(() => given(sent).when(toAda).thenConflict());
    expect(applied.message).toMatch(/^expected a conflict, but the event applied\n/);
    const other = failureOf(() =>
      given(sent, events.signRequestDeclined())
        .when(events.signRequestCompleted())
        .thenConflict({ kind: 'deleted' }),
    );
    expect(other.message).toMatch(/^the conflict does not match: kind differs\n/);
    expect(other.message).toContain("actual conflict:             { entity: 'sign-request'");
  });

  it('fails a no-op or applied expectation with what really happened', () => {
    expect(failureOf(() => given(sent).when(toAda).thenNoOp()).message).toMatch(
      /^expected a no-op, but the event applied\n/,
    );
    expect(failureOf(() => given(sent).when(sent).thenApplied()).message).toMatch(
      /^expected the event to apply, but it changed nothing \(a no-op\)\n/,
    );
    const declined = given(sent, events.signRequestDeclined());
    expect(
      failureOf(() => declined.when(events.signRequestCompleted()).thenApplied()).message,
    ).toMatch(/^expected the event to apply, but it conflicted: sign-request-completed conflicts/);
  });

  it('refuses a history whose events conflict, naming the event', () => {
    const failure = failureOf(() =>
      given(sent, events.signRequestDeclined(), events.signRequestCompleted()),
    );
    expect(failure.message.split('\n')[0]).toBe(
      'given event 3 (sign-request-completed) conflicts: sign-request-completed conflicts with sign-request 1000 (declined): would move it to a status its lifecycle does not allow (declined → completed)',
    );
  });

  it('refuses invalid input, naming where it was', () => {
    expect(failureOf(() => given('{"type":"sign-request-snet"}')).message).toMatch(
      /^given event 1 is not a valid event: type: unknown event type "sign-request-snet"/,
    );
    expect(failureOf(() => given(sent).when({ type: 'participant-signed' })).message).toMatch(
      /^the event under test is not a valid event: /,
    );
  });
});
