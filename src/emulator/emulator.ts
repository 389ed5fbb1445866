/**
 * A local e-signature service: it plays seeded stories (story.ts), sends each
 * event as one signed delivery through a faulty channel (delivery-plan.ts,
 * sender.ts), and answers its read API (read-api.ts) with the records as it
 * holds them now. The service's clock follows its deliveries: an event counts
 * as emitted once a delivery at or after it in the story has started (or it
 * was lost on the way), so the API is never behind what was delivered.
 */

import type { Command } from '../core/decider/command.js';
import { applyEvent } from '../core/projections/dispatch.js';
import { initialState } from '../core/projections/projection-state.js';
import { WorkingCopy } from '../core/projections/working-copy.js';
import { signWebhookBody } from '../webhooks/sign-payload.js';
import { publicKeyOf, signStandardWebhook, standardSigningKey } from '../webhooks/sign-standard.js';
import type { SignatureSchemeName } from '../webhooks/webhook-types.js';
import { type Faults, planDeliveries } from './delivery-plan.js';
import { type ReadApi, startReadApi } from './read-api.js';
import { playScenario } from './scenario.js';
import { seededRandom, subSeed } from './seeded-random.js';
import { type DeliveryCounts, type SendSettings, sendPlan } from './sender.js';
import { representationOf, type ServiceTruth, truthOf } from './service-view.js';
import { type EmittedEvent, playStory, type StoryOptions } from './story.js';

/** Where to, how, and how faulty. Every option but `to` and `secret` has a default. */
export interface EmulatorOptions extends StoryOptions, Faults {
  /** The receiving endpoint, e.g. `http://127.0.0.1:8080/webhooks`; without it nothing is sent. */
  readonly to?: string;
  /** The signing secret: an HMAC key (`hmac`), or `whsec_…` / `whsk_…` (`standard-webhooks`). */
  readonly secret?: string;
  /** Default `hmac`: what `signfold serve` verifies by default. */
  readonly scheme?: SignatureSchemeName;
  /** Deliveries per second (default 0: as fast as the receiver answers). */
  readonly rate?: number;
  /** Retries of a delivery that got no 2xx or no answer in time (default 5). */
  readonly retries?: number;
  /** Deadline of one attempt (default 5,000 ms). */
  readonly timeoutMs?: number;
  /** First retry's wait, doubled each time up to 5 s (default 100 ms). */
  readonly backoffMs?: number;
  /** A seeded wait of up to this long before each delivery (default 0). */
  readonly delayMs?: number;
  /** Serve the read API on 127.0.0.1 and this port (0: any free one); absent: no API. */
  readonly apiPort?: number;
  /** Share of read API requests answered 503 (seeded, in the order they come; default 0). */
  readonly apiFailure?: number;
  /**
   * A scripted story instead of the seeded one: the service's commands, played in order (the
   * story options are then unused). One the service refuses makes `startEmulator` throw.
   */
  readonly scenario?: readonly Command[];
  /** Hears the counts after each delivery. */
  readonly onProgress?: (counts: DeliveryCounts) => void;
}

/** A running emulator. */
export interface Emulator {
  /** The read API's `http://127.0.0.1:PORT`, when `apiPort` was given. */
  readonly apiUrl: string | undefined;
  /** Every event the service emits, in the order it emits them. */
  readonly events: readonly EmittedEvent[];
  /** Deliveries to make: events not lost, plus duplicates (0 without `to`). */
  readonly planned: number;
  /** Under a `whsk_` signing key: the `whpk_` public key a receiver verifies with. */
  readonly publicKey: string | undefined;
  /** Resolves once every delivery was acknowledged or given up (or the emulator stopped). */
  readonly delivered: Promise<DeliveryCounts>;
  /** Every request's and participant's status as the service holds them now. */
  truth(): ServiceTruth;
  /** A request's §2.1 representation now; `undefined` when unknown or deleted. */
  representation(signRequestId: number): Record<string, unknown> | undefined;
  /** The record: one JSON line per event, `{"deliveryId", "event"}`, in emitted order. */
  record(): string;
  /** Stops sending (a delivery in flight is abandoned) and closes the API. */
  stop(): Promise<void>;
}

const NOTHING_SENT: DeliveryCounts = {
  sent: 0,
  acknowledged: 0,
  retried: 0,
  lost: 0,
  duplicated: 0,
  reordered: 0,
  givenUp: 0,
};

/** The headers of an attempt under the scheme, signed with the secret. */
const signerOf = (
  scheme: SignatureSchemeName,
  secret: string,
): { headersOf: SendSettings['headersOf']; publicKey: string | undefined } => {
  if (scheme === 'hmac') {
    return {
      headersOf: (id, body) => ({
        'x-delivery-id': id,
        'x-signature': `sha256=${signWebhookBody(body, secret)}`,
      }),
      publicKey: undefined,
    };
  }
  const key = standardSigningKey(secret, 'the secret');
  return {
    headersOf: (id, body) => {
      const timestamp = Math.floor(Date.now() / 1000);
      return {
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signStandardWebhook(key, id, timestamp, body),
      };
    },
    publicKey: key.kind === 'ed25519' ? publicKeyOf(key) : undefined,
  };
};

/**
 * Starts an emulator: plays the story at once, starts the read API (with
 * `apiPort`) and the deliveries (with `to`). Throws a `RangeError` or
 * `TypeError` for an invalid option, before anything starts.
 *
 * @example
 * ```ts
 * import { startEmulator } from 'signfold/emulator';
 *
 * const emulator = await startEmulator({ seed: 7, requests: 3, apiPort: 0 });
 * const first = emulator.truth().signRequests[0];
 * const answer = await fetch(`${emulator.apiUrl}/sign-requests/${first?.id}`);
 * console.log(answer.status, first?.id); // 200 5000
 * await emulator.stop();
 * ```
 */
export const startEmulator = async (options: EmulatorOptions = {}): Promise<Emulator> => {
  const seed = options.seed ?? 1;
  const story =
    options.scenario === undefined ? playStory(options) : playScenario(options.scenario, seed);
  const plan = planDeliveries(story.events.length, options, seed);
  const { to, secret } = options;
  if (to !== undefined && (secret === undefined || secret === '')) {
    throw new TypeError('a secret is needed to sign deliveries');
  }
  const signer =
    to === undefined ? undefined : signerOf(options.scheme ?? 'hmac', secret as string);

  // The service's state now: its events folded up to the clock.
  const now = new WorkingCopy(initialState());
  const savedAt = new Map<number, number>();
  let clock = 0;
  const advance = (through: number): void => {
    for (; clock <= through && clock < story.events.length; clock += 1) {
      const emitted = story.events[clock] as EmittedEvent;
      applyEvent(now, emitted.event);
      if ('signRequestId' in emitted.event) savedAt.set(emitted.event.signRequestId, emitted.at);
    }
  };
  if (to === undefined) advance(story.events.length);
  const byId = new Map(story.requests.map((request) => [request.id, request]));
  const representation = (id: number): Record<string, unknown> | undefined => {
    const request = byId.get(id);
    // `peek`: the answer is built of primitives, so it keeps nothing of the working copy.
    return now.peek((state) =>
      representationOf(state, request, savedAt.get(id) ?? request?.savedAt ?? 0),
    );
  };

  const apiFailure = options.apiFailure ?? 0;
  if (!(apiFailure >= 0 && apiFailure <= 1)) {
    throw new RangeError(`apiFailure must be in [0, 1], got ${apiFailure}`);
  }
  const apiDraws = seededRandom(subSeed(seed, 41));
  const stopping = new AbortController();
  let api: ReadApi | undefined;
  if (options.apiPort !== undefined) {
    api = await startReadApi(
      {
        representation,
        representations: () =>
          story.requests.flatMap((request) => {
            const found = representation(request.id);
            return found === undefined ? [] : [found];
          }),
      },
      options.apiPort,
      () => apiDraws() < apiFailure,
    );
  }
  const jitter = seededRandom(subSeed(seed, 31));
  const delivered =
    to === undefined || signer === undefined
      ? Promise.resolve(NOTHING_SENT)
      : sendPlan(
          plan,
          story.events.map((e) => ({
            deliveryId: e.deliveryId,
            body: Buffer.from(JSON.stringify(e.wire)),
          })),
          {
            url: to,
            headersOf: signer.headersOf,
            ...(options.rate === undefined ? {} : { rate: options.rate }),
            ...(options.retries === undefined ? {} : { retries: options.retries }),
            ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
            ...(options.backoffMs === undefined ? {} : { backoffMs: options.backoffMs }),
            ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }),
            onStart: advance,
          },
          stopping.signal,
          jitter,
          options.onProgress,
        ).then((counts) => {
          if (!stopping.signal.aborted) advance(story.events.length);
          return counts;
        });
  return {
    apiUrl: api?.url,
    events: story.events,
    planned: to === undefined ? 0 : plan.deliveries.length,
    publicKey: signer?.publicKey,
    delivered,
    truth: () => now.peek((state) => truthOf(state, story.requests)),
    representation,
    record: () =>
      story.events
        .map((e) => `${JSON.stringify({ deliveryId: e.deliveryId, event: e.wire })}\n`)
        .join(''),
    stop: async () => {
      stopping.abort();
      await delivered;
      await api?.close();
    },
  };
};
