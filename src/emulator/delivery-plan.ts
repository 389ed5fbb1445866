/**
 * What the emulated channel does to the story's events, decided up front from
 * the seed (the service interface promises neither delivery nor order): which events are
 * lost for good, which are delivered twice under one delivery id, and which
 * are sent after later events. Pure data: the same seed and faults give the
 * same plan.
 */
import { type Random, seededRandom, subSeed } from './seeded-random.js';

/** Shares in [0, 1]; each defaults to 0 (a perfect channel, in the emitted order). */
export interface Faults {
  /** Share of events never delivered. */
  readonly loss?: number;
  /** Share of delivered events delivered a second time, later, under the same delivery id. */
  readonly duplicate?: number;
  /** Share of delivered events sent 1 to `window` places later than emitted. */
  readonly reorder?: number;
  /** How far (in places) a reordered event or a duplicate lands (default 8). */
  readonly window?: number;
}

/** One HTTP delivery to make. */
export interface PlannedDelivery {
  /** The event's place in the story. */
  readonly index: number;
  /** 0 for the first delivery of an event, 1 for its duplicate. */
  readonly copy: 0 | 1;
}

/** The deliveries in sending order, and what the channel did, by event index. */
export interface DeliveryPlan {
  readonly deliveries: readonly PlannedDelivery[];
  readonly lost: readonly number[];
  readonly duplicated: readonly number[];
  readonly reordered: readonly number[];
}

const share = (name: string, value: number | undefined): number => {
  const rate = value ?? 0;
  if (!(rate >= 0 && rate <= 1)) throw new RangeError(`${name} must be in [0, 1], got ${rate}`);
  return rate;
};

/** Plans the delivery of `count` events (in emitted order) through a channel with `faults`. */
export const planDeliveries = (count: number, faults: Faults, seed: number): DeliveryPlan => {
  const loss = share('loss', faults.loss);
  const duplicate = share('duplicate', faults.duplicate);
  const reorder = share('reorder', faults.reorder);
  const window = Math.max(1, Math.floor(faults.window ?? 8));
  const random: Random = seededRandom(subSeed(seed, 21));
  const lost: number[] = [];
  const duplicated: number[] = [];
  const reordered: number[] = [];
  // Each delivery gets a sort key: its index, pushed back by `window` places at most; the
  // halves keep a moved delivery from tying with one that stayed.
  const keyed: { key: number; order: number; delivery: PlannedDelivery }[] = [];
  const later = (index: number): number => index + 1 + Math.floor(random() * window) + 0.5;
  for (let index = 0; index < count; index += 1) {
    // Every draw is made whatever the outcome, so one share changes no other decision.
    const [lostDraw, duplicateDraw, reorderDraw] = [random(), random(), random()];
    const [reorderKey, duplicateKey] = [later(index), later(index)];
    if (lostDraw < loss) {
      lost.push(index);
      continue;
    }
    if (reorderDraw < reorder) reordered.push(index);
    keyed.push({
      key: reorderDraw < reorder ? reorderKey : index,
      order: keyed.length,
      delivery: { index, copy: 0 },
    });
    if (duplicateDraw < duplicate) {
      duplicated.push(index);
      keyed.push({ key: duplicateKey, order: keyed.length, delivery: { index, copy: 1 } });
    }
  }
  const deliveries = keyed
    .sort((a, b) => a.key - b.key || a.order - b.order)
    .map(({ delivery }) => delivery);
  return { deliveries, lost, duplicated, reordered };
};
