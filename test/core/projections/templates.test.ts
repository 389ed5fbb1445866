import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import { templateId } from '../../../src/core/ids.js';
import {
  getTemplate,
  initialState,
  listTemplates,
  type ProjectionState,
} from '../../../src/core/projections/projection-state.js';
import { given, whenApplied, whenConflict, whenNoOp } from '../../support/specification.js';

const T = templateId(100);
const status = (state: ProjectionState) => getTemplate(state, T)?.status;

describe('template projection', () => {
  it.each([
    ['template-activated', 'active'],
    ['template-inactivated', 'inactive'],
    ['template-deleted', 'deleted'],
  ] as const)('first sight of %s creates the template as %s', (type, expected) => {
    const state = whenApplied(
      initialState(),
      buildEvent(type, { templateName: 'NDA', companyId: 3 }),
    );
    expect(getTemplate(state, T)).toEqual({
      id: 100,
      companyId: 3,
      name: 'NDA',
      ownerId: 10,
      ownerName: 'Olive Owner',
      status: expected,
    });
  });

  it('active → inactive → active (⇄)', () => {
    const active = given(buildEvent('template-activated'));
    const inactive = whenApplied(active, buildEvent('template-inactivated'));
    expect(status(inactive)).toBe('inactive');
    const again = whenApplied(inactive, buildEvent('template-activated'));
    expect(status(again)).toBe('active');
  });

  it.each(['template-activated', 'template-inactivated'] as const)('%s → deleted', (first) => {
    const state = whenApplied(given(buildEvent(first)), buildEvent('template-deleted'));
    expect(status(state)).toBe('deleted');
  });

  it.each(['template-activated', 'template-inactivated'] as const)(
    'deleted is final: %s after deletion conflicts (kind deleted)',
    (type) => {
      const state = given(buildEvent('template-activated'), buildEvent('template-deleted'));
      const conflict = whenConflict(state, buildEvent(type));
      expect(conflict).toMatchObject({
        kind: 'deleted',
        entity: 'template',
        id: 100,
        currentStatus: 'deleted',
        eventType: type,
      });
      expect(conflict.message).toContain('template 100');
    },
  );

  it('a repeated delete is a no-op, even with other names', () => {
    const state = given(buildEvent('template-deleted'));
    whenNoOp(state, buildEvent('template-deleted'));
    whenNoOp(state, buildEvent('template-deleted', { templateName: 'Renamed' }));
  });

  it('a repeated identical event is a no-op returning the same state object', () => {
    for (const type of ['template-activated', 'template-inactivated'] as const) {
      whenNoOp(given(buildEvent(type)), buildEvent(type));
    }
  });

  it('names and owner change, latest wins, with the same status', () => {
    const state = given(buildEvent('template-activated', { templateName: 'NDA' }));
    const renamed = whenApplied(
      state,
      buildEvent('template-activated', { templateName: 'NDA v2', ownerId: 11, ownerName: 'Otto' }),
    );
    expect(getTemplate(renamed, T)).toMatchObject({
      name: 'NDA v2',
      ownerId: 11,
      ownerName: 'Otto',
      status: 'active',
    });
    expect(renamed).not.toBe(state);
  });

  it("another company's event conflicts (company-mismatch), even on a deleted template", () => {
    for (const last of ['template-activated', 'template-deleted'] as const) {
      const state = given(buildEvent(last, { companyId: 1 }));
      for (const type of [
        'template-activated',
        'template-inactivated',
        'template-deleted',
      ] as const) {
        const conflict = whenConflict(state, buildEvent(type, { companyId: 2 }));
        expect(conflict).toMatchObject({
          kind: 'company-mismatch',
          entity: 'template',
          id: 100,
          currentStatus: status(state),
          eventType: type,
          recordCompanyId: 1,
          eventCompanyId: 2,
        });
      }
    }
  });

  it('templates are independent of each other', () => {
    const state = given(
      buildEvent('template-activated', { templateId: 100 }),
      buildEvent('template-deleted', { templateId: 101 }),
    );
    const next = whenApplied(state, buildEvent('template-inactivated', { templateId: 100 }));
    expect(status(next)).toBe('inactive');
    expect(getTemplate(next, templateId(101))?.status).toBe('deleted');
    expect([...listTemplates(next)].map((t) => t.id)).toEqual([100, 101]);
  });

  it('getTemplate of an unknown id is undefined', () => {
    expect(getTemplate(initialState(), T)).toBeUndefined();
    expect(getTemplate(given(buildEvent('template-activated')), templateId(999))).toBeUndefined();
  });
});
