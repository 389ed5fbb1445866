/**
 * `signfold/emulator`: a local e-signature service for tests and demos. It
 * plays seeded stories decided by the service's own rules (`decide`), sends
 * each event as a signed webhook delivery (HMAC or Standard Webhooks), with
 * retries and the faults you ask for (loss, duplicates, reordering), and
 * answers its read API. Start it in process, await what it delivered, read
 * its truth, stop it. See `docs/emulator.md`.
 *
 * @packageDocumentation
 */

export type { Faults } from './delivery-plan.js';
export type { Emulator, EmulatorOptions } from './emulator.js';
export { startEmulator } from './emulator.js';
export type { DeliveryCounts } from './sender.js';
export type {
  ServiceTruth,
  TruthParticipant,
  TruthSignRequest,
  TruthTemplate,
} from './service-view.js';
export type { EmittedEvent, SigningOrder, StoryOptions } from './story.js';
