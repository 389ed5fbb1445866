/**
 * The `Change` a projector hands to `onApplied` (a projector without one
 * builds none: a plain replay pays one test). Its views are made when first
 * read: `after` from the working copy, `before` from the pre-images the
 * working copy kept of the records the event wrote (see `PreImages`), or
 * from the working copy for a record it did not write. A reactor that reads
 * no view costs those pre-images only (one shallow copy per record written,
 * young garbage), where copying every view up front cost about twice that.
 * Each view made is a record safe to keep.
 *
 * The working copy moves on with the next event, so a view can be made only
 * until `onApplied` returns: the change is then revoked, and a view first
 * read later throws, as an immer draft does once its recipe has returned.
 * A view read in time stays readable.
 */
import type { SignEvent } from '../events/sign-event.js';
import { keepable, type PreImage, type PreImages, UNWRITTEN } from '../projections/pre-images.js';
import type { WorkingCopy } from '../projections/working-copy.js';
import type { Change, TouchedViews } from '../reactors/reactor-types.js';

const NOTHING: TouchedViews = Object.freeze({});

const viewsOf = (
  signRequest: object | undefined,
  participant: object | undefined,
  template: object | undefined,
): TouchedViews => {
  if (template !== undefined) return { template } as TouchedViews;
  if (signRequest === undefined) {
    return participant === undefined ? NOTHING : ({ participant } as TouchedViews);
  }
  return (
    participant === undefined ? { signRequest } : { signRequest, participant }
  ) as TouchedViews;
};

/** Nothing written yet: the slots of the records `event` names. */
const watchedBy = (event: SignEvent): PreImages => {
  const named = 'signRequestId' in event;
  return {
    templateId: named ? undefined : event.templateId,
    signRequestId: named ? event.signRequestId : undefined,
    participantId: 'participantId' in event ? event.participantId : undefined,
    template: UNWRITTEN,
    signRequest: UNWRITTEN,
    participant: UNWRITTEN,
  };
};

/** The views in `copy`, or with `past` the pre-images where written (see the module comment). */
const viewsIn = (copy: WorkingCopy, pre: PreImages, past: boolean): TouchedViews => {
  const pick = <T extends object>(image: PreImage<T>, current: T | undefined): T | undefined =>
    past && image !== UNWRITTEN ? image : keepable(current);
  const requestId = pre.signRequestId;
  if (requestId === undefined) {
    const template = pre.templateId === undefined ? undefined : copy.template(pre.templateId);
    return viewsOf(undefined, undefined, pick(pre.template, template));
  }
  const participantId = pre.participantId;
  return viewsOf(
    pick(pre.signRequest, copy.signRequest(requestId)),
    participantId === undefined
      ? undefined
      : pick(pre.participant, copy.participant(requestId, participantId)),
    undefined,
  );
};

/**
 * The views `event` touches in `copy` as it stands: a sign request and its
 * participant for participant events, the sign request for sign-request
 * events, the template for template events; one that does not exist is absent.
 */
export const touchedViewsOf = (copy: WorkingCopy, event: SignEvent): TouchedViews =>
  viewsIn(copy, watchedBy(event), false);

/** A change whose views are made on first read, until it is revoked (see the module comment). */
export class AppliedChange implements Change {
  readonly event: SignEvent;
  readonly position: number;
  readonly receivedAt: string | undefined;
  readonly deliveryId: string | undefined;
  /** What the working copy fills while the event is applied. */
  readonly #preImages: PreImages;
  #copy: WorkingCopy | undefined;
  #before: TouchedViews | undefined;
  #after: TouchedViews | undefined;

  constructor(
    copy: WorkingCopy,
    event: SignEvent,
    position: number,
    receivedAt: string | undefined,
    source: { readonly deliveryId?: string | undefined },
  ) {
    this.event = event;
    this.position = position;
    this.receivedAt = receivedAt;
    this.deliveryId = source.deliveryId;
    this.#copy = copy;
    this.#preImages = watchedBy(event);
    // From now until the projector stops it once the event is applied.
    copy.watch(this.#preImages);
  }

  /** The views the event touched, as they were before it. */
  get before(): TouchedViews {
    this.#before ??= this.#views('before');
    return this.#before;
  }

  /** The views the event touched, as it left them. */
  get after(): TouchedViews {
    this.#after ??= this.#views('after');
    return this.#after;
  }

  /** Calls `listener` with this change, then revokes it: no view can be made after that. */
  handTo(listener: ((change: Change) => void) | undefined): void {
    try {
      listener?.(this);
    } finally {
      this.#copy = undefined;
    }
  }

  /** The change as plain data, for `JSON.stringify` and logging while it is valid. */
  toJSON(): Change {
    const { event, position, receivedAt, deliveryId, before, after } = this;
    return { event, position, receivedAt, deliveryId, before, after };
  }

  /** What Node's `console.log` and `util.inspect` show: the views too, as far as they can be made. */
  [Symbol.for('nodejs.util.inspect.custom')](): Record<string, unknown> {
    const viewOr = (which: 'before' | 'after'): unknown => {
      try {
        return this[which];
      } catch {
        return '[not read while onApplied ran]';
      }
    };
    const { event, position, receivedAt, deliveryId } = this;
    return {
      event,
      position,
      receivedAt,
      deliveryId,
      before: viewOr('before'),
      after: viewOr('after'),
    };
  }

  #views(which: 'before' | 'after'): TouchedViews {
    const copy = this.#copy;
    if (copy === undefined) {
      throw new TypeError(
        `change.${which} of position ${this.position} was first read after onApplied returned; ` +
          'read the views while react runs and keep what you need',
      );
    }
    return viewsIn(copy, this.#preImages, which === 'before');
  }
}
