import { describe, expect, it } from 'vitest';
import {
  decodeErasureEntry,
  type ErasureEntry,
  ErasureLedger,
} from '../../../src/core/privacy/erasure-ledger.js';
import { isPseudonym, newPseudonym } from '../../../src/core/privacy/pseudonym.js';

const P = 'forgotten-0123456789abcdef';
const Q = 'forgotten-fedcba9876543210';
const entry = (over: Partial<ErasureEntry> = {}): ErasureEntry => ({
  erasure: 'e1',
  state: 'done',
  at: '2026-11-27T12:00:00.000Z',
  pseudonym: P,
  participantIds: [7],
  userIds: [],
  typedNames: 0,
  ...over,
});

describe('newPseudonym', () => {
  it('makes distinct pseudonyms of the documented form', () => {
    const made = new Set(Array.from({ length: 1000 }, newPseudonym));
    expect(made.size).toBe(1000);
    for (const pseudonym of made) expect(isPseudonym(pseudonym)).toBe(true);
    expect(isPseudonym('forgotten-Ann')).toBe(false);
  });
});

describe('decodeErasureEntry', () => {
  it('accepts what the ledger writes and names the wrong member otherwise', () => {
    expect(decodeErasureEntry(entry()).isOk()).toBe(true);
    const wrong: [unknown, string][] = [
      [null, 'JSON object'],
      [{ ...entry(), erasure: '' }, '"erasure"'],
      [{ ...entry(), state: 'maybe' }, '"state"'],
      [{ ...entry(), at: 'yesterday' }, '"at"'],
      [{ ...entry(), pseudonym: 'Ann Smith' }, '"pseudonym"'],
      [{ ...entry(), participantIds: ['7'] }, '"participantIds"'],
      [{ ...entry(), userIds: [0.5] }, '"userIds"'],
      [{ ...entry(), typedNames: -1 }, '"typedNames"'],
      [{ ...entry(), companyId: 'x' }, '"companyId"'],
    ];
    for (const [value, member] of wrong) {
      expect(decodeErasureEntry(value)._unsafeUnwrapErr()).toContain(member);
    }
  });
});

describe('ErasureLedger', () => {
  it('reuses the pseudonym of an id already forgotten, in the same company scope only', () => {
    const ledger = new ErasureLedger([entry({ userIds: [11] })]);
    const ask = { participantIds: [], userIds: [11], names: [] };
    expect(ledger.pseudonymFor(ask)).toBe(P);
    expect(ledger.pseudonymFor({ ...ask, companyId: 3 })).toBeUndefined();
    expect(ledger.pseudonymFor({ ...ask, userIds: [12] })).toBeUndefined();
  });

  it('finishes an interrupted erasure of the same subject with its pseudonym', () => {
    const started = entry({ participantIds: [], typedNames: 1, pseudonym: Q, state: 'started' });
    const ledger = new ErasureLedger([started]);
    expect(ledger.pseudonymFor({ participantIds: [], userIds: [], names: ['x'] })).toBe(Q);
    const done = new ErasureLedger([started, { ...started, state: 'done' }]);
    expect(done.pseudonymFor({ participantIds: [], userIds: [], names: ['x'] })).toBeUndefined();
  });

  it('erases names of forgotten ids on append, every other byte kept', () => {
    const ledger = new ErasureLedger([
      entry(),
      entry({ erasure: 'e2', pseudonym: Q, participantIds: [], userIds: [11] }),
    ]);
    const text =
      '{"type":"participant-viewed", "companyId":3,"participantId":7,"partcipantName":"Ann","senderId":11,"senderName":"Bob","ownerId":12,"ownerName":"Cy"}';
    expect(ledger.eraseOnAppend(text)).toBe(
      `{"type":"participant-viewed", "companyId":3,"participantId":7,"partcipantName":"${P}","senderId":11,"senderName":"${Q}","ownerId":12,"ownerName":"Cy"}`,
    );
    const other = '{"type":"participant-viewed","participantId":8,"partcipantName":"Dan"}';
    expect(ledger.eraseOnAppend(other)).toBe(other);
    for (const odd of ['not json', '[1]', 'null', '{"participantId":"7","partcipantName":"Ann"}']) {
      expect(ledger.eraseOnAppend(odd)).toBe(odd);
    }
    expect(new ErasureLedger([]).isEmpty).toBe(true);
  });
});
