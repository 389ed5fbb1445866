/**
 * An observation's audit entry is called `observation`; snapshots written
 * before 0.2 called it `repair`, and restoring one reads it as today's word.
 */
import { describe, expect, it } from 'vitest';
import { type AuditEntry, AuditTrail } from '../../src/engine/audit-trail.js';

const entry = (type: string): AuditEntry =>
  ({
    position: 3,
    type,
    participantId: undefined,
    receivedAt: undefined,
    outcome: 'applied',
    differences: ['status: projection says sent, service says completed'],
  }) as unknown as AuditEntry;

describe('audit entries of observations', () => {
  it('reads the older word repair as observation, and keeps every other member', () => {
    const trail = AuditTrail.fromData({ signRequests: [[42, [entry('repair')]]], templates: [] });
    expect(trail.ofSignRequest(42)).toEqual([{ ...entry('observation') }]);
  });

  it('keeps an event type and today’s word as they are', () => {
    const trail = AuditTrail.fromData({
      signRequests: [[42, [entry('sign-request-sent'), entry('observation')]]],
      templates: [],
    });
    expect(trail.ofSignRequest(42).map((e) => e.type)).toEqual([
      'sign-request-sent',
      'observation',
    ]);
  });
});
