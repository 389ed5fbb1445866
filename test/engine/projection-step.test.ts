/**
 * The projector's step alone: a working copy, upcasters and a hook that
 * writes down what it hears. No log, no checkpoint, no projector: what a
 * record comes to, and what the hook is told, in order.
 */
import { describe, expect, it } from 'vitest';
import { initialState } from '../../src/core/projections/projection-state.js';
import { WorkingCopy } from '../../src/core/projections/working-copy.js';
import { defineUpcaster, type UpcasterDefinition } from '../../src/core/upcasters/index.js';
import { ProjectionStep, type StepHook } from '../../src/engine/projection-step.js';
import type { QuarantineReason } from '../../src/engine/quarantine.js';
import { RecordContext } from '../../src/engine/record-context.js';
import { encodeEvent } from '../../src/index.js';
import { events } from '../../src/testing/index.js';

/** A hook that notes each call, and quarantines (or, `halting`, refuses to). */
const listening = (halting = false) => {
  const heard: string[] = [];
  const hook: StepHook = {
    eventApplying: (record) =>
      heard.push(`applying ${record.event?.type} ${record.index}/${record.count}`),
    eventFolded: (record, outcome) =>
      heard.push(
        `folded ${record.event?.type} ${typeof outcome === 'object' ? outcome.kind : outcome}`,
      ),
    observing: () => heard.push('observing'),
    observed: (_record, outcome) => heard.push(`observed ${outcome}`),
    setAside: (_record, reason: QuarantineReason) => {
      heard.push(`set aside ${reason.kind}`);
      return !halting;
    },
  };
  return { heard, hook };
};

const stepOf = (hook: StepHook, upcasters: readonly UpcasterDefinition[] = []) => {
  const copy = new WorkingCopy(initialState());
  const checked = upcasters.map((upcaster) => defineUpcaster(upcaster));
  return { copy, step: new ProjectionStep(copy, checked, { strict: false }, hook) };
};

/** An upcaster of every record, into what `to` makes of it. */
const everyRecord = (name: string, to: UpcasterDefinition['to']): UpcasterDefinition => ({
  name,
  from: () => true,
  to,
});

const SENT = events.signRequestSent().type;

const recordOf = (value: unknown, position = 1) =>
  new RecordContext().begin(position, undefined, undefined, value, {});

describe('the projection step', () => {
  it('applies an event, then finds the same event a no-op', () => {
    const { heard, hook } = listening();
    const { step, copy } = stepOf(hook);
    const sent = encodeEvent(events.signRequestSent());
    expect(step.project(recordOf(sent, 1))).toBe('applied');
    expect(step.project(recordOf(sent, 2))).toBe('no-op');
    expect(copy.signRequest(events.signRequestSent().signRequestId)).toBeDefined();
    expect(heard).toEqual([
      `applying ${SENT} 0/1`,
      `folded ${SENT} applied`,
      `applying ${SENT} 0/1`,
      `folded ${SENT} no-op`,
    ]);
  });

  it('sets aside what does not decode, and halts when the hook refuses to quarantine', () => {
    const skip = listening();
    const record = recordOf({ type: 'no.such.event' });
    expect(stepOf(skip.hook).step.project(record)).toBe('quarantined');
    expect(record.reason?.kind).toBe('invalid-event');
    expect(skip.heard).toEqual(['set aside invalid-event']);
    const halt = listening(true);
    expect(stepOf(halt.hook).step.project(recordOf({ type: 'no.such.event' }))).toBe('halted');
  });

  it('applies the events an upcaster makes of one record in order, each in its place', () => {
    const { heard, hook } = listening();
    const twice = everyRecord('twice', (wire) => [wire, wire]);
    const { step } = stepOf(hook, [twice]);
    const record = recordOf(encodeEvent(events.signRequestSent()));
    expect(step.project(record)).toBe('applied');
    expect(record.by).toEqual(['twice']);
    expect(heard).toEqual([
      `applying ${SENT} 0/2`,
      `folded ${SENT} applied`,
      `applying ${SENT} 1/2`,
      `folded ${SENT} no-op`,
    ]);
  });

  it('resumes a record a halt stopped part-way from the event it names', () => {
    const { heard, hook } = listening();
    const twice = everyRecord('twice', (wire) => [wire, wire]);
    const record = recordOf(encodeEvent(events.signRequestSent()));
    record.resumeIndex = 1;
    record.resumeApplied = true;
    expect(stepOf(hook, [twice]).step.project(record)).toBe('applied');
    expect(heard).toEqual([`applying ${SENT} 1/2`, `folded ${SENT} applied`]);
  });

  it('takes a record an upcaster drops as a no-op, telling no one', () => {
    const { heard, hook } = listening();
    const drop = everyRecord('drop', () => []);
    expect(stepOf(hook, [drop]).step.project(recordOf(encodeEvent(events.signRequestSent())))).toBe(
      'no-op',
    );
    expect(heard).toEqual([]);
  });
});
