/**
 * A simulator of the e-signature service (spec: docs/service-interface.md), for tests that need
 * the service on the other side of the wire: a seeded story of templates, sign requests and
 * participants (./esign-service-model.ts), delivered as signed webhooks through a lossy,
 * duplicating, reordering channel (./delivery-plan.ts, ./webhook-sender.ts), and a read API
 * answering each request's representation (./simulator-api.ts). It holds the truth: what the
 * service knows at the end, which a receiver's projection can be held against.
 *
 * ```ts
 * const simulator = createEsignSimulator({ seed: 7, signRequests: 40 });
 * const report = await simulator.deliver({ loss: 0.05, reorder: 0.2, duplicate: 0.05 }, { url, secret });
 * const api = await simulator.listen(); // GET ${api.url}/sign-requests/:id
 * simulator.truth(); // every request's and participant's status, as the service has them
 * await simulator.close(); // closes every API it started
 * ```
 */
import { type DeliveryFaults, type DeliveryPlan, planDeliveries } from './delivery-plan.js';
import {
  type ServiceTruth,
  type StoryEvent,
  type StoryOptions,
  tellStory,
} from './esign-service-model.js';
import { type ApiFailure, type SimulatorApi, startSimulatorApi } from './simulator-api.js';
import { type DeliveryReport, type SendOptions, sendDeliveries } from './webhook-sender.js';

export type { DeliveryFaults, DeliveryPlan, PlannedDelivery } from './delivery-plan.js';
export type {
  ServiceTruth,
  SigningOrder,
  SimParticipantStatus,
  SimSignRequestStatus,
  StoryEvent,
  StoryOptions,
  TemplateStatus,
  TruthParticipant,
  TruthSignRequest,
  TruthTemplate,
} from './esign-service-model.js';
export type { ApiCall, ApiFailure, SimulatorApi } from './simulator-api.js';
export type { DeliveryReport, DeliveryResult, SendOptions } from './webhook-sender.js';

/** Largest story the simulator tells: tests that use it must stay quick on a busy machine. */
export const MAX_SIGN_REQUESTS = 200;

/** The simulator of one seeded story. */
export interface EsignSimulator {
  readonly seed: number;
  /** Every event the service emitted, in the order it emitted them. */
  readonly events: readonly StoryEvent[];
  /** What the service knows at the end of the story. */
  truth(): ServiceTruth;
  /** A sign request's §2 representation as GET answers it; `undefined` when unknown or deleted. */
  representation(signRequestId: number): Record<string, unknown> | undefined;
  /** The deliveries `faults` make of the story (the same for the same seed and faults). */
  plan(faults: DeliveryFaults): DeliveryPlan;
  /** Delivers the story through a channel with `faults` to `options.url`; never throws per delivery. */
  deliver(faults: DeliveryFaults, options: SendOptions): Promise<DeliveryReport>;
  /** Starts the read API (127.0.0.1, a free port), with failures injected per id. */
  listen(failures?: ReadonlyMap<number, ApiFailure>): Promise<SimulatorApi>;
  /** Closes every API `listen` started. */
  close(): Promise<void>;
}

/** A simulator of the story `options.seed` tells (see {@link StoryOptions}). */
export const createEsignSimulator = (options: StoryOptions): EsignSimulator => {
  const requests = options.signRequests ?? 40;
  if (!(Number.isInteger(requests) && requests >= 0 && requests <= MAX_SIGN_REQUESTS)) {
    throw new RangeError(`signRequests must be 0 to ${MAX_SIGN_REQUESTS}, got ${requests}`);
  }
  const story = tellStory(options);
  const apis = new Set<SimulatorApi>();
  const plan = (faults: DeliveryFaults): DeliveryPlan =>
    planDeliveries(story.events, faults, options.seed);
  return {
    seed: options.seed,
    events: story.events,
    truth: () => story.truth,
    representation: story.representation,
    plan,
    deliver: (faults, sendOptions) =>
      sendDeliveries(plan(faults), story.events.length, sendOptions),
    listen: async (failures) => {
      const api = await startSimulatorApi(story.representation, failures);
      apis.add(api);
      return api;
    },
    close: async () => {
      const open = [...apis];
      apis.clear();
      await Promise.all(open.map((api) => api.close()));
    },
  };
};
