import { describe, expect, it } from 'vitest';
import type { QuarantineEntry } from '../../../src/engine/quarantine.js';
import { problemsByKind, quarantineGroups } from '../../../src/report/model/quarantine-rows.js';

const badLine = (position: number, message: string): QuarantineEntry => ({
  position,
  line: position,
  raw: '{"position":…',
  reason: { kind: 'bad-line', message },
});

/** Out-of-order envelopes: the same error, naming different positions. */
const OUT_OF_ORDER = [
  badLine(3, 'envelope position 5 is not greater than the previous position 7'),
  badLine(9, 'envelope position 2 is not greater than the previous position 12'),
  badLine(11, 'invalid JSON: Unexpected token } in JSON at position 14'),
];

describe('quarantine rows: the kind of a bad line', () => {
  it('is one kind for one error, whatever positions its messages name', () => {
    expect(problemsByKind(OUT_OF_ORDER)).toEqual([
      {
        category: 'bad line',
        kind: 'envelope position # is not greater than the previous position #',
        count: 2,
      },
      { category: 'bad line', kind: 'invalid JSON', count: 1 },
    ]);
  });

  it('puts such lines in one quarantine group, with the numbers of the message as #', () => {
    const groups = quarantineGroups(OUT_OF_ORDER, []);
    expect(groups.map((g) => [g.kind, g.count])).toEqual([
      ['envelope position # is not greater than the previous position #', 2],
      ['invalid JSON', 1],
    ]);
  });
});
