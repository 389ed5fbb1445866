/**
 * What a lossy, unordered webhook channel does to a story (spec §6.4 promises neither delivery
 * nor order), decided up front from a seed: which events are lost, which are delivered twice
 * (under the same delivery id, as a sender's retry would be), which arrive late, and which wait
 * before being sent. The plan is pure data, so the same seed gives the same plan and a test can
 * say in advance what the receiver should end up with.
 */
import { mulberry32, subSeed } from '../../bench/stream/seeded-random.js';

/** Rates in [0, 1]; every one defaults to 0 (a perfect channel). */
export interface DeliveryFaults {
  /** Share of events never delivered. */
  readonly loss?: number;
  /** Share of delivered events delivered a second time, later, with the same delivery id. */
  readonly duplicate?: number;
  /** Share of delivered events moved 1 to `window` places later in the sending order. */
  readonly reorder?: number;
  /** Share of deliveries held back before being sent, for up to `maxDelayMs`. */
  readonly delay?: number;
  /** Largest hold-back of a delayed delivery (default 20 ms). */
  readonly maxDelayMs?: number;
  /** How far (in places) a reordered event or a duplicate may land (default 8). */
  readonly window?: number;
}

/** One HTTP delivery to make. */
export interface PlannedDelivery {
  readonly deliveryId: string;
  /** Index of the event in the story. */
  readonly eventIndex: number;
  /** 0 for the first delivery of an event, 1 for its duplicate. */
  readonly copy: 0 | 1;
  /** Wait this long before sending (0 for most). */
  readonly delayMs: number;
  readonly body: string;
}

/** The deliveries in sending order, and what the channel did to which delivery id. */
export interface DeliveryPlan {
  readonly deliveries: readonly PlannedDelivery[];
  readonly lost: readonly string[];
  readonly duplicated: readonly string[];
  readonly reordered: readonly string[];
  readonly delayed: readonly string[];
}

const checkRate = (name: string, rate: number): number => {
  if (!(rate >= 0 && rate <= 1)) throw new RangeError(`${name} must be in [0, 1], got ${rate}`);
  return rate;
};

/** Plans the delivery of `events` (in story order) through a channel with `faults`. */
export const planDeliveries = (
  events: readonly { readonly deliveryId: string; readonly text: string }[],
  faults: DeliveryFaults,
  seed: number,
): DeliveryPlan => {
  const loss = checkRate('loss', faults.loss ?? 0);
  const duplicate = checkRate('duplicate', faults.duplicate ?? 0);
  const reorder = checkRate('reorder', faults.reorder ?? 0);
  const delay = checkRate('delay', faults.delay ?? 0);
  const maxDelayMs = faults.maxDelayMs ?? 20;
  const window = Math.max(1, Math.floor(faults.window ?? 8));
  const random = mulberry32(subSeed(seed, 21));
  const lost: string[] = [];
  const duplicated: string[] = [];
  const reordered: string[] = [];
  // Each delivery gets a sort key: its index, pushed back by `window` places at most. The halves
  // keep a moved delivery from tying with one that stayed.
  const keyed: { key: number; delivery: Omit<PlannedDelivery, 'delayMs'> }[] = [];
  const later = (index: number): number => index + 1 + Math.floor(random() * window) + 0.5;
  events.forEach((event, index) => {
    // Every draw is made whatever the outcome, so one rate changes no other decision.
    const [lostDraw, duplicateDraw, reorderDraw] = [random(), random(), random()];
    const [reorderKey, duplicateKey] = [later(index), later(index)];
    if (lostDraw < loss) {
      lost.push(event.deliveryId);
      return;
    }
    const base = { deliveryId: event.deliveryId, eventIndex: index, body: event.text };
    if (reorderDraw < reorder) reordered.push(event.deliveryId);
    keyed.push({
      key: reorderDraw < reorder ? reorderKey : index,
      delivery: { ...base, copy: 0 },
    });
    if (duplicateDraw < duplicate) {
      duplicated.push(event.deliveryId);
      keyed.push({ key: duplicateKey, delivery: { ...base, copy: 1 } });
    }
  });
  const delayed: string[] = [];
  const deliveries = keyed
    .map((item, order) => ({ ...item, order }))
    .sort((a, b) => a.key - b.key || a.order - b.order)
    .map(({ delivery }) => {
      const [heldDraw, amountDraw] = [random(), random()];
      if (heldDraw < delay) delayed.push(delivery.deliveryId);
      return {
        ...delivery,
        delayMs: heldDraw < delay ? Math.floor(amountDraw * maxDelayMs) + 1 : 0,
      };
    });
  return { deliveries, lost, duplicated, reordered, delayed };
};
