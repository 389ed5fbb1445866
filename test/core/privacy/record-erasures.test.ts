import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import { encodeEvent } from '../../../src/core/events/encode-event.js';
import type { NamesToErase } from '../../../src/core/privacy/erase-in-text.js';
import type { ErasureSubject } from '../../../src/core/privacy/erasure-subject.js';
import { namesHeldBy, recordErasures } from '../../../src/core/privacy/record-erasures.js';
import { rewriteJsonStrings } from '../../../src/core/privacy/rewrite-json-strings.js';

const P = 'forgotten-0123456789abcdef';
const subject = (over: Partial<ErasureSubject> = {}): ErasureSubject => ({
  participantIds: [],
  userIds: [],
  names: [],
  pseudonym: P,
  ...over,
});
const NONE: NamesToErase = { typed: [], found: [] };

/** The wire text of an event (with `partcipantName`), then erased as a forget would. */
const erase = (value: unknown, who: ErasureSubject, names = NONE): unknown => {
  const text = JSON.stringify(value);
  return JSON.parse(rewriteJsonStrings(text, recordErasures(value, who, names)).text);
};

const signed = encodeEvent(
  buildEvent('participant-signed', {
    companyId: 3,
    signRequestId: 42,
    signRequestName: 'NDA for Ann Smith',
    participantId: 7,
    participantName: 'Ann Smith',
    senderId: 11,
    senderName: 'Bob Jones',
    ownerId: 12,
    ownerName: 'Cy Owner',
  }),
);

describe('recordErasures on events', () => {
  it('replaces the participant name (wire spelling) of a forgotten participant id', () => {
    const out = erase(signed, subject({ participantIds: [7] })) as Record<string, unknown>;
    expect(out.partcipantName).toBe(P);
    expect(out.senderName).toBe('Bob Jones');
    expect(out.ownerName).toBe('Cy Owner');
    // Without the name among those erased, the title is kept.
    expect(out.signRequestName).toBe('NDA for Ann Smith');
  });

  it('erases a name inside the titles when it is among the names erased', () => {
    const names = { typed: [], found: ['Ann Smith'] };
    const out = erase(signed, subject({ participantIds: [7] }), names) as Record<string, unknown>;
    expect(out.signRequestName).toBe(`NDA for ${P}`);
  });

  it('replaces sender and owner names of a forgotten user id, each by its own id', () => {
    const sender = erase(signed, subject({ userIds: [11] })) as Record<string, unknown>;
    expect([sender.senderName, sender.ownerName, sender.partcipantName]).toEqual([
      P,
      'Cy Owner',
      'Ann Smith',
    ]);
    const owner = erase(signed, subject({ userIds: [12] })) as Record<string, unknown>;
    expect([owner.senderName, owner.ownerName]).toEqual(['Bob Jones', P]);
  });

  it('matches a typed name exactly after NFC, in any person-name member', () => {
    const decomposed = { ...signed, senderName: 'Zoe\u0301' };
    const out = erase(decomposed, subject({ names: ['Zo\u00e9'] })) as Record<string, unknown>;
    expect(out.senderName).toBe(P);
    expect(out.partcipantName).toBe('Ann Smith');
    expect(erase(signed, subject({ names: ['Ann'] }))).toEqual(signed);
  });

  it('keeps another company out when a company is given, and ids that are not safe integers', () => {
    expect(erase(signed, subject({ participantIds: [7], companyId: 4 }))).toEqual(signed);
    const inCompany = erase(signed, subject({ participantIds: [7], companyId: 3 }));
    expect((inCompany as Record<string, unknown>).partcipantName).toBe(P);
    const stringId = { ...signed, participantId: '7' };
    expect(erase(stringId, subject({ participantIds: [7] }))).toEqual(stringId);
  });

  it('erases both spellings when an invalid event carries both', () => {
    const both = { ...signed, participantName: 'Ann Smith' };
    const out = erase(both, subject({ participantIds: [7] })) as Record<string, unknown>;
    expect([out.partcipantName, out.participantName]).toEqual([P, P]);
  });

  it('reads the names it would replace, and nothing from records that are not objects', () => {
    expect(namesHeldBy(signed, subject({ participantIds: [7], userIds: [12] }))).toEqual([
      'Ann Smith',
      'Cy Owner',
    ]);
    for (const value of [null, 7, 'Ann Smith', ['Ann Smith']]) {
      expect(namesHeldBy(value, subject({ names: ['Ann Smith'] }))).toEqual([]);
      expect(recordErasures(value, subject({ names: ['Ann Smith'] }), NONE).size).toBe(0);
    }
  });

  it('applies under a prefix, as in an envelope', () => {
    const envelope = { position: 3, deliveryId: 'd', event: signed };
    const text = JSON.stringify(envelope);
    const map = recordErasures(signed, subject({ participantIds: [7] }), NONE, ['event']);
    const out = JSON.parse(rewriteJsonStrings(text, map).text);
    expect(out.event.partcipantName).toBe(P);
    expect(out.deliveryId).toBe('d');
  });

  it('yields nothing new for a record already forgotten', () => {
    const once = erase(signed, subject({ participantIds: [7] }));
    expect(recordErasures(once, subject({ participantIds: [7] }), NONE).size).toBe(0);
  });
});

describe('recordErasures on observation records', () => {
  const observation = {
    record: 'observation',
    signRequestId: 42,
    companyId: 3,
    fetchedAt: '2026-11-27T12:00:00.000Z',
    signRequest: {
      id: 42,
      name: 'NDA for Ann Smith',
      participants: [
        {
          id: 7,
          name: 'Ann Smith',
          email: 'ann@example.com',
          fieldData: [{ id: 1, fieldId: 2, imageContent: 'QUJD', imageMimetype: 'image/png' }],
        },
        { id: 8, name: 'Dan Other', email: 'dan@example.com' },
      ],
    },
  };

  it('erases the forgotten participant: name, e-mail and signature image; others stay', () => {
    const names = { typed: [], found: namesHeldBy(observation, subject({ participantIds: [7] })) };
    expect(names.found).toEqual(['Ann Smith']);
    const out = erase(observation, subject({ participantIds: [7] }), names) as typeof observation;
    const [ann, dan] = out.signRequest.participants;
    expect(ann).toEqual({
      id: 7,
      name: P,
      email: `${P}@erased.invalid`,
      fieldData: [{ id: 1, fieldId: 2, imageContent: '', imageMimetype: 'image/png' }],
    });
    expect(dan).toEqual(observation.signRequest.participants[1]);
    expect(out.signRequest.name).toBe(`NDA for ${P}`);
  });
});
