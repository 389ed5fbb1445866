/**
 * The attributes signfold puts on its spans (docs/tracing.md lists them):
 * OpenTelemetry's semantic-convention names where one fits (`http.*`,
 * `error.type`), `signfold.*` otherwise. One table, so the handler, the
 * projector, the workers and the runners cannot spell one differently.
 */
import type { TraceAttributes } from './tracing.js';

/** Attribute names. */
export const TRACE_ATTRIBUTE = Object.freeze({
  httpMethod: 'http.request.method',
  httpStatus: 'http.response.status_code',
  deliveryId: 'signfold.delivery.id',
  position: 'signfold.log.position',
  signRequestId: 'signfold.sign_request.id',
  companyId: 'signfold.company.id',
  eventType: 'signfold.event.type',
  outcome: 'signfold.outcome',
  partition: 'signfold.partition',
  batchFrom: 'signfold.batch.from',
  batchTo: 'signfold.batch.to',
  batchRecords: 'signfold.batch.records',
  reactor: 'signfold.reactor',
  effectId: 'signfold.effect.id',
  attempt: 'signfold.effect.attempt',
} as const);

/** A member of a raw value, when the value is an object. */
const memberOf = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined;

/** A member that is a safe integer, else `undefined`. */
const integerOf = (value: unknown, name: string): number | undefined => {
  const member = memberOf(value, name);
  return Number.isSafeInteger(member) ? (member as number) : undefined;
};

/**
 * What a raw stored value says of itself, undecoded (it may be invalid): its
 * sign request, company and type, as far as it has them. An observation
 * record names its sign request as an event does.
 */
export const eventAttributes = (event: unknown): TraceAttributes => {
  const type = memberOf(event, 'type') ?? memberOf(event, 'record');
  return {
    [TRACE_ATTRIBUTE.signRequestId]: integerOf(event, 'signRequestId'),
    [TRACE_ATTRIBUTE.companyId]: integerOf(event, 'companyId'),
    [TRACE_ATTRIBUTE.eventType]: typeof type === 'string' ? type.slice(0, 64) : undefined,
  };
};
