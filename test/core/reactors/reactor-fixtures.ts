import { events } from '../../../src/core/builders/plain-builders.js';
import { initialState } from '../../../src/core/projections/projection-state.js';
import type { Change } from '../../../src/core/reactors/reactor-types.js';

/** A change for `participantSent` at `position`, received at `receivedAt` (ms) or a bare line. */
export const changeAt = (position: number, receivedAt: number | undefined): Change => ({
  event: events.participantSent(),
  position,
  receivedAt: receivedAt === undefined ? undefined : new Date(receivedAt).toISOString(),
  deliveryId: undefined,
  before: {},
  after: {},
  state: initialState(),
});
