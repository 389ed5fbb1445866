/**
 * The decider's rules, one example each, written with the test kit's decider specification:
 * given the events so far, when a command is decided, then these events or this rejection.
 */
import { describe, expect, it } from 'vitest';
import type { Command } from '../../../src/core/decider/command.js';
import { events, given } from '../../../src/testing/index.js';

const template = events.templateActivated({ templateId: 100, templateName: 'NDA' });
const sent = events.signRequestSent({ signRequestId: 1000, templateId: 100, templateName: 'NDA' });
const ada = { participantId: 5, participantName: 'Ada Lovelace', roleId: 7, roleName: 'Signer' };
const grace = { participantId: 6, participantName: 'Grace Hopper', roleId: 8, roleName: 'Witness' };
const adaSent = events.participantSent({ participantId: 5 });
const graceSent = events.participantSent({
  participantId: 6,
  participantName: 'Grace Hopper',
  roleId: 8,
  roleName: 'Witness',
});
const graceEvent = {
  participantId: 6,
  participantName: 'Grace Hopper',
  roleId: 8,
  roleName: 'Witness',
};

const send: Command = {
  type: 'send-sign-request',
  companyId: 1,
  signRequestId: 1000,
  signRequestName: 'NDA for Ada',
  ownerId: 10,
  ownerName: 'Olive Owner',
  senderId: 20,
  senderName: 'Sam Sender',
  templateId: 100,
  participants: [ada],
};

describe('decide: templates', () => {
  it('creates a template active, and refuses a second with its id', () => {
    const create: Command = {
      type: 'create-template',
      companyId: 1,
      templateId: 100,
      templateName: 'NDA',
      ownerId: 10,
      ownerName: 'Olive Owner',
    };
    given().when(create).then(template).thenTemplate(100, { status: 'active' });
    given(template).when(create).thenRejected('already-exists');
  });

  it('inactivates, activates and deletes by the template lifecycle', () => {
    given(template)
      .when({ type: 'inactivate-template', templateId: 100 })
      .then(events.templateInactivated({ templateId: 100, templateName: 'NDA' }));
    given(template).when({ type: 'activate-template', templateId: 100 }).thenRejected('unchanged');
    given(template, events.templateDeleted({ templateId: 100, templateName: 'NDA' }))
      .when({ type: 'activate-template', templateId: 100 })
      .thenRejected('deleted', { conflict: { entity: 'template', id: 100 } });
    given().when({ type: 'delete-template', templateId: 100 }).thenRejected('unknown-template');
  });
});

describe('decide: sign requests', () => {
  it('sends from an active template: the request, then each participant it is sent to', () => {
    given(template).when(send).then(sent, adaSent).thenParticipant(1000, 5, { status: 'sent' });
  });

  it('refuses an unknown, inactive or deleted template, and another company’s', () => {
    given().when(send).thenRejected('unknown-template');
    given(template, events.templateInactivated({ templateId: 100, templateName: 'NDA' }))
      .when(send)
      .thenRejected('template-not-active');
    given(template, events.templateDeleted({ templateId: 100, templateName: 'NDA' }))
      .when(send)
      .thenRejected('deleted', { conflict: { entity: 'template' } });
    given(events.templateActivated({ templateId: 100, companyId: 2 }))
      .when(send)
      .thenRejected('unknown-template');
  });

  it('sends a document alone, under its own template members', () => {
    given()
      .when({
        ...send,
        from: 'document',
        templateId: 900,
        templateName: 'One-off',
        participants: [],
      })
      .then(events.signRequestSent({ templateId: 900, templateName: 'One-off' }));
  });

  it('declines and deletes; a final request refuses what its lifecycle does not allow', () => {
    given(sent)
      .when({ type: 'decline-sign-request', signRequestId: 1000 })
      .then(events.signRequestDeclined());
    given(sent, events.signRequestCompleted())
      .when({ type: 'decline-sign-request', signRequestId: 1000 })
      .thenRejected('invalid-transition', { conflict: { entity: 'sign-request' } });
    given(sent)
      .when({ type: 'delete-sign-request', signRequestId: 1000 })
      .then(events.signRequestDeleted());
    given(sent, events.signRequestDeleted())
      .when({ type: 'delete-sign-request', signRequestId: 1000 })
      .thenRejected('unchanged');
    given()
      .when({ type: 'delete-sign-request', signRequestId: 1000 })
      .thenRejected('unknown-sign-request');
  });

  it('refuses a second request with the same id, and a participant listed twice', () => {
    given(template, sent).when(send).thenRejected('already-exists');
    given(template)
      .when({ ...send, participants: [ada, ada] })
      .thenRejected('invalid-command');
    given(template)
      .when({ ...send, signRequestId: 1.5 })
      .thenRejected('invalid-command', {
        message:
          'send-sign-request refused: sign-request-sent: signRequestId: member "signRequestId" must be a safe integer, got float 1.5',
      });
  });
});

describe('decide: participants', () => {
  it('a view, a download: the participant’s names come from what the service holds', () => {
    given(sent, adaSent)
      .when({ type: 'view', signRequestId: 1000, participantId: 5 })
      .then(events.participantViewed())
      .thenParticipant(1000, 5, { status: 'viewed', viewCount: 1 });
    given(sent, adaSent)
      .when({ type: 'download', signRequestId: 1000, participantId: 5 })
      .then(events.participantDownloaded());
    given(sent)
      .when({ type: 'view', signRequestId: 1000, participantId: 5 })
      .thenRejected('unknown-participant');
  });

  it('the last signature completes the request in the same decision', () => {
    given(sent, adaSent)
      .when({ type: 'sign', signRequestId: 1000, participantId: 5 })
      .then(events.participantSigned(), events.signRequestCompleted())
      .thenSignRequest(1000, { status: 'completed' });
    given(sent, adaSent, graceSent)
      .when({ type: 'sign', signRequestId: 1000, participantId: 5 })
      .then(events.participantSigned())
      .thenSignRequest(1000, { status: 'sent' });
  });

  it('in signing order: the next participant is sent once those before have signed', () => {
    const next: Command = {
      type: 'send-to-participant',
      signRequestId: 1000,
      participant: grace,
      after: [5],
    };
    given(sent, adaSent)
      .when(next)
      .thenRejected('signing-order', { waitingFor: [5] });
    given(sent, adaSent, events.participantSigned())
      .when(next)
      .then(events.participantSent(graceEvent));
    // Ada's signature does not complete a request Grace has yet to sign.
    given(sent, adaSent)
      .when({ type: 'sign', signRequestId: 1000, participantId: 5, signers: [5, 6] })
      .then(events.participantSigned());
  });

  it('a decline declines the request; a signed participant cannot decline', () => {
    given(sent, adaSent)
      .when({ type: 'decline', signRequestId: 1000, participantId: 5 })
      .then(events.participantDeclined(), events.signRequestDeclined());
    given(sent, adaSent, events.participantSigned())
      .when({ type: 'decline', signRequestId: 1000, participantId: 5 })
      .thenRejected('invalid-transition', { conflict: { entity: 'participant' } });
    given(sent, adaSent, events.participantSigned())
      .when({ type: 'sign', signRequestId: 1000, participantId: 5 })
      .thenRejected('unchanged');
    given(sent, adaSent, events.signRequestDeleted())
      .when({ type: 'view', signRequestId: 1000, participantId: 5 })
      .thenRejected('deleted');
  });
});

describe('the decider specification', () => {
  it('fails with the events it expected and those decided', () => {
    expect(() =>
      given(sent, adaSent)
        .when({ type: 'sign', signRequestId: 1000, participantId: 5 })
        .then(events.participantSigned()),
    ).toThrow(
      /the command emitted other events\nexpected:\n {2}1\. participant-signed .*\n[\s\S]*decided:\n {2}1\. participant-signed .*\n {2}2\. sign-request-completed/,
    );
    expect(() =>
      given(sent)
        .when({ type: 'view', signRequestId: 1000, participantId: 5 })
        .thenRejected('deleted'),
    ).toThrow(/the rejection does not match: kind/);
    expect(() =>
      given(sent)
        .when({ type: 'decline-sign-request', signRequestId: 1000 })
        .thenRejected('deleted'),
    ).toThrow(/expected a rejection \(deleted\), but the command was decided/);
  });

  it('takes expected events as wire objects and as wire text, with either spelling', () => {
    const wire = {
      type: 'participant-viewed',
      companyId: 1,
      signRequestId: 1000,
      signRequestName: 'NDA for Ada',
      participantId: 5,
      partcipantName: 'Ada Lovelace',
      roleId: 7,
      roleName: 'Signer',
      senderId: 20,
      senderName: 'Sam Sender',
      ownerId: 10,
      ownerName: 'Olive Owner',
    };
    given(sent, adaSent)
      .when({ type: 'view', signRequestId: 1000, participantId: 5 })
      .then(wire)
      .then(JSON.stringify(wire));
  });

  it('can be awaited', async () => {
    const spec = given(sent).when({ type: 'decline-sign-request', signRequestId: 1000 });
    await expect(Promise.resolve(spec).then(() => 'resolved')).resolves.toBe('resolved');
  });
});
