import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import { signRequestId } from '../../../src/core/ids.js';
import type { ProjectionState } from '../../../src/core/projections/projection-state.js';
import { initialState } from '../../../src/core/projections/projection-state.js';
import { fold, reduce } from '../../../src/core/projections/reduce.js';

describe('fold and reduce never write to a state they did not make', () => {
  it('leaves a hand-built state with Object.freeze-d Maps and mutable records untouched', () => {
    const { state } = fold(initialState(), [buildEvent('sign-request-sent')]);
    const record = { ...state.signRequests.get(signRequestId(1000)) };
    const handBuilt = {
      templates: Object.freeze(new Map()),
      signRequests: Object.freeze(new Map([[signRequestId(1000), record]])),
      participants: Object.freeze(new Map()),
    } as unknown as ProjectionState;

    const folded = fold(handBuilt, [buildEvent('sign-request-completed')]).state;
    expect(record.status).toBe('sent');
    expect(handBuilt.signRequests.get(signRequestId(1000))).toBe(record);
    expect(folded.signRequests.get(signRequestId(1000))?.status).toBe('completed');
    expect(Object.isFrozen(folded.signRequests.get(signRequestId(1000)))).toBe(true);

    // A state reduce made from it is not trusted either: its untouched parts are the caller's.
    const reduced = reduce(handBuilt, buildEvent('participant-sent'))._unsafeUnwrap();
    fold(reduced, [buildEvent('sign-request-completed')]);
    expect(record.status).toBe('sent');
  });
});
