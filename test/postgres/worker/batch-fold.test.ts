/**
 * The fold of a partition batch, alone: no database. What the partition
 * counts and quarantines leaves out the template events of other partitions
 * (partition 0 counts them), while their changes still reach the state.
 */
import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import { initialState } from '../../../src/core/projections/projection-state.js';
import type { LogRecord } from '../../../src/engine/event-log.js';
import { foldBatch } from '../../../src/postgres/worker/batch-fold.js';

const entry = (position: number, event: unknown): LogRecord => ({
  kind: 'entry',
  position,
  line: position,
  receivedAt: undefined,
  deliveryId: undefined,
  event,
  raw: JSON.stringify(event),
});

const badLine = (position: number): LogRecord => ({
  kind: 'bad-line',
  position,
  line: position,
  raw: '{',
  reason: 'invalid JSON',
});

const input = (records: readonly LogRecord[], counted: readonly boolean[], partition = 3) => ({
  partition,
  from: 0,
  records,
  counted,
  before: initialState(),
  strict: false,
  upcasters: [],
});

describe('foldBatch', () => {
  const template = buildEvent('template-activated');
  const records = [entry(1, template), badLine(2), entry(3, buildEvent('sign-request-sent'))];

  it('folds every record into the state, and notes where each record was first seen', () => {
    const folded = foldBatch(input(records, [true, true, true]));
    expect(folded.state.templates.size).toBe(1);
    expect(folded.state.signRequests.size).toBe(1);
    expect([...folded.firstSeen.templates.values()]).toEqual([1]);
    expect([...folded.firstSeen.signRequests.values()]).toEqual([3]);
    expect(folded.processed).toBe(3);
    expect(folded.quarantine.map((q) => q.position)).toEqual([2]);
    expect(folded.stats.applied + folded.stats.invalid + folded.stats.noOps).toBeGreaterThan(0);
  });

  it('leaves the records another partition counts out of the counters and the quarantine, not out of the state', () => {
    const all = foldBatch(input(records, [true, true, true]));
    const some = foldBatch(input(records, [false, false, true]));
    expect(some.state.templates.size).toBe(1);
    expect(some.processed).toBe(1);
    expect(some.quarantine).toEqual([]);
    expect(some.stats.applied).toBe(all.stats.applied - 1);
    expect(some.stats.invalid).toBe(all.stats.invalid - 1);
  });

  it('tells each applied change, and reads nothing but what it is given', () => {
    const told: number[] = [];
    foldBatch({
      ...input(records, [true, true, true]),
      onApplied: (change) => told.push(change.position),
    });
    expect(told).toEqual([1, 3]);
    expect(foldBatch(input([], [])).processed).toBe(0);
  });
});
