import { describe, expect, it } from 'vitest';
import { JOURNAL_HEADER } from '../../../src/store/reactors/journal-record.js';
import { EMPTY_JOURNAL, parseJournal } from '../../../src/store/reactors/reactor-journal.js';

const header = JSON.stringify(JOURNAL_HEADER);
const entry = (id: number, state: string, extra: object = {}) => ({
  id,
  reactor: 'documents',
  position: id * 10,
  index: 0,
  idempotencyKey: `documents:${id * 10}:0`,
  effect: { type: 'fetch', id },
  state,
  attempts: 0,
  lastError: '',
  invalid: false,
  ...extra,
});
const record = (entries: object[], nextId: number, position = 0) =>
  JSON.stringify({
    nextId,
    positions: { documents: position },
    watermarks: { documents: 1000 },
    entries,
  });

describe('the reactor journal', () => {
  it('merges its records: the last value of an entry wins, checkpoints and ids move on', () => {
    const text = `${header}\n${record([entry(1, 'ready'), entry(2, 'scheduled', { key: 'k', dueAt: 5 })], 3, 10)}\n${record([entry(1, 'done', { attempts: 1 })], 3, 20)}\n`;
    const state = parseJournal('j', text)._unsafeUnwrap();
    expect(state.positions).toEqual({ documents: 20 });
    expect(state.book.nextId).toBe(3);
    expect(state.book.entries.map((e) => [e.id, e.state, e.attempts, e.key, e.dueAt])).toEqual([
      [1, 'done', 1, undefined, undefined],
      [2, 'scheduled', 0, 'k', 5],
    ]);
  });

  it('sums nothing but keeps the last pruned counts of done effects', () => {
    const line = (pruned: object) =>
      JSON.stringify({ nextId: 1, positions: {}, watermarks: {}, entries: [], pruned });
    const text = `${header}\n${line({ documents: 3 })}\n${line({ documents: 5, other: 1 })}\n`;
    expect(parseJournal('j', text)._unsafeUnwrap().pruned).toEqual({ documents: 5, other: 1 });
    const bad = `${header}\n${line({ documents: -1 })}\n`;
    expect(parseJournal('j', bad)._unsafeUnwrapErr().message).toBe(
      'j:2: pruned is not a map of counts',
    );
  });

  it('drops a torn last line (a write cut short), but not a damaged line before it', () => {
    const good = `${header}\n${record([entry(1, 'ready')], 2, 10)}\n`;
    const torn = `${good}${record([entry(1, 'done')], 2, 20).slice(0, 30)}`;
    expect(parseJournal('j', torn)._unsafeUnwrap().positions).toEqual({ documents: 10 });
    const damaged = `${header}\n{"nextId":1,\n${record([entry(1, 'ready')], 2, 10)}\n`;
    expect(parseJournal('LOG.reactors', damaged)._unsafeUnwrapErr()).toEqual({
      kind: 'corrupt',
      message: 'LOG.reactors:2: not JSON',
    });
  });

  it('refuses a file that is not a journal, and an entry with a wrong field', () => {
    expect(parseJournal('j', '{"hello":1}\n')._unsafeUnwrapErr().message).toBe(
      'j:1: not a signfold reactor journal (bad header line)',
    );
    const bad = `${header}\n${record([entry(1, 'exploded')], 2)}\n`;
    expect(parseJournal('j', bad)._unsafeUnwrapErr().message).toBe(
      'j:2: entry 0 is not a journal entry',
    );
    expect(parseJournal('j', '')._unsafeUnwrap()).toEqual(EMPTY_JOURNAL);
  });
});
