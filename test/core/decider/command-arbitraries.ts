/**
 * Random command sequences over a small id space (two companies, three templates, three requests
 * of up to three participants), so that most rules of the decider are met often: unknown records,
 * repeated commands, commands after a decline, a completion or a deletion, other companies.
 */
import fc from 'fast-check';
import type { Command } from '../../../src/core/decider/command.js';

const company = fc.constantFrom(1, 2);
const template = fc.constantFrom(1, 2, 3);
const request = fc.constantFrom(10, 11, 12);
const participant = fc.constantFrom(1, 2, 3);
const name = fc.constantFrom('Ada', 'Grace', 'Zoë Müller', '');

const participantFacts = fc.record({
  participantId: participant,
  participantName: name,
  roleId: fc.constantFrom(1, 2),
  roleName: fc.constantFrom('Signer', 'Witness'),
});

/** Any one command of the service, over the small id space. */
export const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    type: fc.constant('create-template' as const),
    companyId: company,
    templateId: template,
    templateName: name,
    ownerId: fc.constantFrom(100, 200),
    ownerName: name,
  }),
  fc.record({
    type: fc.constantFrom(
      'activate-template' as const,
      'inactivate-template' as const,
      'delete-template' as const,
    ),
    templateId: template,
  }),
  fc
    .record({
      companyId: company,
      signRequestId: request,
      signRequestName: name,
      ownerId: fc.constantFrom(100, 200),
      ownerName: name,
      senderId: fc.constantFrom(101, 201),
      senderName: name,
      templateId: template,
      participants: fc.uniqueArray(participantFacts, {
        maxLength: 3,
        selector: (p) => p.participantId,
      }),
      document: fc.boolean(),
    })
    .map(
      ({ document, ...rest }): Command =>
        document
          ? { type: 'send-sign-request', ...rest, from: 'document', templateName: 'One-off' }
          : { type: 'send-sign-request', ...rest },
    ),
  fc.record({
    type: fc.constantFrom('decline-sign-request' as const, 'delete-sign-request' as const),
    signRequestId: request,
  }),
  fc.record({
    type: fc.constant('send-to-participant' as const),
    signRequestId: request,
    participant: participantFacts,
    after: fc.uniqueArray(participant, { maxLength: 2 }),
  }),
  fc.record({
    type: fc.constantFrom('view' as const, 'download' as const, 'decline' as const),
    signRequestId: request,
    participantId: participant,
  }),
  // Signing is the commonest command, so that requests complete.
  ...Array.from({ length: 3 }, () =>
    fc.record(
      {
        type: fc.constant('sign' as const),
        signRequestId: request,
        participantId: participant,
        signers: fc.uniqueArray(participant, { minLength: 1, maxLength: 3 }),
      },
      { requiredKeys: ['type', 'signRequestId', 'participantId'] },
    ),
  ),
);

/**
 * A sequence of commands, as a service's users would send them, after a prelude that is often
 * there (templates, and requests sent from them) so that later commands find records to act on.
 */
export const commandsArb: fc.Arbitrary<Command[]> = fc
  .tuple(
    fc.subarray([1, 2, 3]),
    fc.subarray([10, 11, 12]),
    fc.array(commandArb, { minLength: 1, maxLength: 50 }),
  )
  .map(([templates, requests, rest]) => [
    ...templates.map(
      (id): Command => ({
        type: 'create-template',
        companyId: 1,
        templateId: id,
        templateName: `Template ${id}`,
        ownerId: 100,
        ownerName: 'Olive',
      }),
    ),
    ...requests.map(
      (id, index): Command => ({
        type: 'send-sign-request',
        companyId: 1,
        signRequestId: id,
        signRequestName: `Request ${id}`,
        ownerId: 100,
        ownerName: 'Olive',
        senderId: 101,
        senderName: 'Sam',
        templateId: templates[index % Math.max(1, templates.length)] ?? 1,
        participants: [1, 2].map((p) => ({
          participantId: p,
          participantName: `P${p}`,
          roleId: p,
          roleName: 'Signer',
        })),
      }),
    ),
    ...rest,
  ]);
