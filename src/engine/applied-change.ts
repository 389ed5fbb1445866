/**
 * The `Change` a projector hands to `onApplied` (a projector without one
 * builds none: a plain replay pays one test). Its views are made when first
 * read: `after` from the working copy, `before` from the pre-images kept as
 * the working copy wrote the records the event touches (see
 * `WriteWatcher`), or from the working copy for a record it did not write. A reactor that reads
 * no view costs those pre-images only (one shallow copy per record written,
 * young garbage), where copying every view up front cost about twice that.
 * Each view made is a record safe to keep.
 *
 * The working copy moves on with the next event, so a view can be made only
 * until `onApplied` returns: the change is then revoked, and a view first
 * read later throws, as an immer draft does once its recipe has returned.
 * A view read in time stays readable. `state` (the event's sign request with
 * all its participants, or its template) follows the same rules.
 */
import type { SignEvent } from '../core/events/sign-event.js';
import type { ParticipantId, SignRequestId, TemplateId } from '../core/ids.js';
import { FrozenMap } from '../core/projections/frozen-map.js';
import type { ProjectionState } from '../core/projections/projection-state.js';
import type {
  ParticipantView,
  SignRequestView,
  TemplateView,
} from '../core/projections/records.js';
import type { WorkingCopy } from '../core/projections/working-copy.js';
import { keepable, type WriteWatcher } from '../core/projections/write-watcher.js';
import type { Change, TouchedViews, Upcast } from '../core/reactors/reactor-types.js';

/** A touched record no write has reached yet during the event. */
const UNWRITTEN: unique symbol = Symbol('unwritten');
/** A pre-image slot: the record as it was, `undefined` when the event created it, or UNWRITTEN. */
type PreImage<T> = T | undefined | typeof UNWRITTEN;

/** The ids of the records an event touches (members it does not have read as `undefined`). */
interface TouchedIds {
  readonly templateId?: TemplateId;
  readonly signRequestId?: SignRequestId;
  readonly participantId?: ParticipantId;
}

const NOTHING: TouchedViews = Object.freeze({});

const viewsOf = (
  signRequest: SignRequestView | undefined,
  participant: ParticipantView | undefined,
  template: TemplateView | undefined,
): TouchedViews => {
  if (template !== undefined) return { template };
  if (signRequest === undefined) return participant === undefined ? NOTHING : { participant };
  return participant === undefined ? { signRequest } : { signRequest, participant };
};

const pick = <T extends object>(image: PreImage<T>, current: T | undefined): T | undefined =>
  image === UNWRITTEN ? keepable(current) : image;

/**
 * The views `event` touches in `copy` as it stands: a sign request and its
 * participant for participant events, the sign request for sign-request
 * events, the template for template events; one that does not exist is absent.
 */
export const touchedViewsOf = (copy: WorkingCopy, event: SignEvent): TouchedViews => {
  const { templateId, signRequestId, participantId } = event as TouchedIds;
  if (signRequestId === undefined) {
    return viewsOf(
      undefined,
      undefined,
      templateId === undefined ? undefined : keepable(copy.template(templateId)),
    );
  }
  return viewsOf(
    keepable(copy.signRequest(signRequestId)),
    participantId === undefined
      ? undefined
      : keepable(copy.participant(signRequestId, participantId)),
    undefined,
  );
};

/**
 * A record as it stands, frozen: a published one is shared, one of the working
 * copy's own is copied. The copy is made with `Object.assign`, not a spread: V8
 * gives a spread copy a map of its own, and freezing such an object costs about
 * 5 µs (a new map each time) against about 1 µs.
 */
const frozen = <T extends object>(record: T | undefined): T | undefined =>
  record === undefined || Object.isFrozen(record)
    ? record
    : Object.freeze(Object.assign({}, record));

/** The collections a scoped state leaves empty, shared (they cannot change). */
const NO_TEMPLATES: ReadonlyMap<TemplateId, TemplateView> = new FrozenMap();
const NO_SIGN_REQUESTS: ReadonlyMap<SignRequestId, SignRequestView> = new FrozenMap();
const NO_PARTICIPANTS: ProjectionState['participants'] = new FrozenMap();

/**
 * The projection as `copy` stands, as far as `event` goes (see
 * `Change.state`): its sign request with every participant of it, in id
 * order, or its template. Deeply frozen (its Maps refuse writes). Not marked
 * published: a WeakSet entry per change made the garbage collector's work
 * grow with every state (`fold` copies its few records instead).
 */
export const scopedStateOf = (copy: WorkingCopy, event: SignEvent): ProjectionState => {
  const { templateId, signRequestId } = event as TouchedIds;
  if (signRequestId === undefined) {
    const template = templateId === undefined ? undefined : frozen(copy.template(templateId));
    return Object.freeze({
      templates: template === undefined ? NO_TEMPLATES : new FrozenMap([[template.id, template]]),
      signRequests: NO_SIGN_REQUESTS,
      participants: NO_PARTICIPANTS,
    });
  }
  const request = frozen(copy.signRequest(signRequestId));
  // Copied out at once (what peek hands over must not be kept), in id order: engines hold
  // participants in different orders (first seen in memory, as loaded on PostgreSQL), and a
  // reactor must see the same state on each.
  const ofRequest = copy.peek((state) => {
    const found = [...(state.participants.get(signRequestId)?.values() ?? [])];
    found.sort((a, b) => a.id - b.id);
    return found.map((p): [ParticipantId, ParticipantView] => [p.id, frozen(p) as ParticipantView]);
  });
  return Object.freeze({
    templates: NO_TEMPLATES,
    signRequests: request === undefined ? NO_SIGN_REQUESTS : new FrozenMap([[request.id, request]]),
    participants:
      ofRequest.length === 0
        ? NO_PARTICIPANTS
        : new FrozenMap([[signRequestId, new FrozenMap(ofRequest)]]),
  });
};

/** A change whose views are made on first read, until it is revoked (see the module comment). */
export class AppliedChange implements Change, WriteWatcher {
  readonly event: SignEvent;
  readonly position: number;
  readonly receivedAt: string | undefined;
  readonly deliveryId: string | undefined;
  readonly upcast: Upcast | undefined;
  #copy: WorkingCopy | undefined;
  #template: PreImage<TemplateView> = UNWRITTEN;
  #signRequest: PreImage<SignRequestView> = UNWRITTEN;
  #participant: PreImage<ParticipantView> = UNWRITTEN;
  #before: TouchedViews | undefined;
  #after: TouchedViews | undefined;
  #state: ProjectionState | undefined;

  constructor(
    copy: WorkingCopy,
    event: SignEvent,
    position: number,
    receivedAt: string | undefined,
    source: { readonly deliveryId?: string | undefined },
    upcast?: Upcast,
  ) {
    this.event = event;
    this.position = position;
    this.receivedAt = receivedAt;
    this.deliveryId = source.deliveryId;
    this.upcast = upcast;
    this.#copy = copy;
    // From now until the projector stops it once the event is applied.
    copy.watch(this);
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

  /** The projection after the event, as far as the event goes (see `Change.state`). */
  get state(): ProjectionState {
    if (this.#state === undefined) {
      this.#state = scopedStateOf(this.#live('state'), this.event);
    }
    return this.#state;
  }

  /** For the working copy (see `WriteWatcher`): keeps the first pre-image of a touched record. */
  keepTemplate(id: TemplateId, record: TemplateView | undefined, inPlace: boolean): void {
    // A sign-request event names its template too, but touches only the sign request's views.
    const ids = this.event as TouchedIds;
    if (this.#template !== UNWRITTEN || ids.signRequestId !== undefined || id !== ids.templateId)
      return;
    this.#template = inPlace ? keepable(record) : record;
  }

  /** As {@link AppliedChange.keepTemplate}, for the sign request. */
  keepSignRequest(id: SignRequestId, record: SignRequestView | undefined, inPlace: boolean): void {
    if (this.#signRequest !== UNWRITTEN || id !== (this.event as TouchedIds).signRequestId) return;
    this.#signRequest = inPlace ? keepable(record) : record;
  }

  /** As {@link AppliedChange.keepTemplate}, for the participant. */
  keepParticipant(
    signRequestId: SignRequestId,
    id: ParticipantId,
    record: ParticipantView | undefined,
    inPlace: boolean,
  ): void {
    const ids = this.event as TouchedIds;
    if (this.#participant !== UNWRITTEN || id !== ids.participantId) return;
    if (signRequestId !== ids.signRequestId) return;
    this.#participant = inPlace ? keepable(record) : record;
  }

  /** Calls `listener` with this change, then revokes it: no view can be made after that. */
  handTo(listener: ((change: Change) => void) | undefined): void {
    try {
      listener?.(this);
    } finally {
      this.#copy = undefined;
    }
  }

  /**
   * The change as plain data, for `JSON.stringify` and logging while it is
   * valid. Without `state`, whose Maps JSON cannot show (and which the views
   * hold the touched part of).
   */
  toJSON(): Omit<Change, 'state'> {
    const { event, position, receivedAt, deliveryId, before, after } = this;
    return { event, position, receivedAt, deliveryId, before, after };
  }

  /** What Node's `console.log` and `util.inspect` show: the views and state too, as far as they can be made. */
  [Symbol.for('nodejs.util.inspect.custom')](): Record<string, unknown> {
    const viewOr = (which: 'before' | 'after' | 'state'): unknown => {
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
      state: viewOr('state'),
    };
  }

  /** The working copy, while the change is valid; a `TypeError` naming `member` after that. */
  #live(member: 'before' | 'after' | 'state'): WorkingCopy {
    const copy = this.#copy;
    if (copy === undefined) {
      throw new TypeError(
        `change.${member} of position ${this.position} was first read after onApplied returned; ` +
          'read the views while react runs and keep what you need',
      );
    }
    return copy;
  }

  #views(which: 'before' | 'after'): TouchedViews {
    const copy = this.#live(which);
    // Made once for both: a record the event did not write is the same before and after.
    this.#after ??= touchedViewsOf(copy, this.event);
    const now = this.#after;
    if (which === 'after') return now;
    if ((this.event as TouchedIds).signRequestId === undefined) {
      return viewsOf(undefined, undefined, pick(this.#template, now.template));
    }
    return viewsOf(
      pick(this.#signRequest, now.signRequest),
      pick(this.#participant, now.participant),
      undefined,
    );
  }
}
