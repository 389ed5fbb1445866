import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../../src/core/events/decode-event.js';
import {
  decodeErasureEntry,
  type ErasureEntry,
  ErasureLedger,
} from '../../../src/core/privacy/erasure-ledger.js';
import type { NameKey } from '../../../src/core/privacy/name-key.js';
import { personNamesIn } from '../../../src/core/privacy/person-names.js';
import { isPseudonym, newPseudonym } from '../../../src/core/privacy/pseudonym.js';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';

const keyed =
  (key: string): NameKey =>
  (name) =>
    createHmac('sha256', key).update(Buffer.from(name, 'utf16le')).digest('hex');
const KEY = keyed('a key of this store');

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
      [{ ...entry(), nameKeys: ['Ann Smith'] }, '"nameKeys"'],
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

  it('recognises a typed name by its keyed hash only: reused pseudonym, erased on append', () => {
    const name = 'Ann Sm\u0069\u0308th'; // NFD: the ledger compares NFC
    const nameKeys = new ErasureLedger([], KEY).nameKeysOf([name]);
    const byName = entry({ participantIds: [], typedNames: 1, nameKeys });
    expect(JSON.stringify(byName)).not.toContain('Ann');
    const ledger = new ErasureLedger([byName], KEY);
    const ask = { participantIds: [], userIds: [], names: [name.normalize('NFC')] };
    expect(ledger.pseudonymFor(ask)).toBe(P);
    expect(ledger.pseudonymFor({ ...ask, names: ['Ann'] })).toBeUndefined();
    // Another key (another store, or a key lost): the hash is not recognised.
    expect(new ErasureLedger([byName], keyed('another')).pseudonymFor(ask)).toBeUndefined();
    const late = JSON.stringify({
      type: 'participant-viewed',
      participantId: 99,
      partcipantName: name.normalize('NFC'),
      signRequestName: `Lease for ${name.normalize('NFC')}`,
      senderId: 5,
      senderName: 'Bob',
    });
    const stored = JSON.parse(ledger.eraseOnAppend(late));
    expect(stored).toMatchObject({
      partcipantName: P,
      signRequestName: `Lease for ${P}`,
      senderName: 'Bob',
    });
    const observation = {
      record: 'observation',
      signRequestId: 1,
      signRequest: { id: 1, participants: [{ id: 3, name, email: 'ann@example.com' }] },
    };
    const erased = JSON.parse(ledger.eraseOnAppend(JSON.stringify(observation)));
    expect(erased.signRequest.participants[0]).toEqual({
      id: 3,
      name: P,
      email: `${P}@erased.invalid`,
    });
  });

  it('never throws on the hostile corpus, keeps each line’s verdict, and erases its names', () => {
    const lines = readFileSync(HOSTILE_CORPUS, 'utf8').split('\n');
    const names = new Set<string>();
    for (const line of lines) {
      try {
        const value = JSON.parse(line) as { event?: unknown };
        for (const { name } of personNamesIn(value.event ?? value)) names.add(name);
      } catch {}
    }
    expect(names.size).toBeGreaterThan(5);
    const all = [...names];
    const ledger = new ErasureLedger(
      [
        entry({
          participantIds: [],
          typedNames: all.length,
          nameKeys: new ErasureLedger([], KEY).nameKeysOf(all),
        }),
      ],
      KEY,
    );
    for (const line of lines) {
      const text = (() => {
        try {
          const value = JSON.parse(line) as { event?: unknown };
          return value.event === undefined ? line : JSON.stringify(value.event);
        } catch {
          return line;
        }
      })();
      const stored = ledger.eraseOnAppend(text);
      let before: unknown;
      try {
        before = JSON.parse(text);
      } catch {
        expect(stored).toBe(text);
        continue;
      }
      const after: unknown = JSON.parse(stored);
      expect(decodeEvent(after).isOk()).toBe(decodeEvent(before).isOk());
      for (const { name } of personNamesIn(after)) expect(name).toBe(P);
    }
  });
});
