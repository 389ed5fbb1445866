/**
 * Runs a `verify` hook (createWebhookHandler's option for a provider whose
 * layout no scheme fits) and checks what it returned. The hook is the
 * application's code: a throw, a rejection or a malformed verdict is the
 * application's fault, answered 503 (the sender retries once it is fixed),
 * never a throw out of the handler.
 */
import { err, ok, type Result } from 'neverthrow';
import { isWireId } from '../core/events/wire-id.js';
import type {
  Verification,
  VerificationRequest,
  WebhookReply,
  WebhookResponse,
} from './webhook-types.js';

/** What the hook decided, checked. */
export type HookDecision =
  | {
      readonly kind: 'verified';
      readonly deliveryId: string | undefined;
      readonly companies: ReadonlySet<number> | undefined;
      readonly reply: WebhookResponse | undefined;
    }
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'reply'; readonly reply: WebhookResponse };

/** The hook failed: why, answered 503. */
export interface HookFailure {
  readonly reason: string;
}

const TEXT = { 'content-type': 'text/plain; charset=utf-8' };

const responseOf = (reply: WebhookReply | undefined): WebhookResponse | undefined => {
  if (typeof reply !== 'object' || reply === null) return undefined;
  const { status, headers, body } = reply;
  if (!Number.isInteger(status) || status < 200 || status > 599) return undefined;
  if (typeof body !== 'string') return undefined;
  if (headers !== undefined && (typeof headers !== 'object' || headers === null)) return undefined;
  const entries = Object.entries(headers ?? TEXT);
  if (entries.some(([, value]) => typeof value !== 'string')) return undefined;
  return { status, headers: Object.fromEntries(entries), body };
};

const invalid = (what: string): Result<never, HookFailure> =>
  err({ reason: `the verify hook returned ${what}` });

/** Checks a verdict's members; anything else is a failure. */
const decisionOf = (verdict: Verification): Result<HookDecision, HookFailure> => {
  if (typeof verdict !== 'object' || verdict === null) return invalid('no verification');
  if (verdict.kind === 'refused') {
    return typeof verdict.reason === 'string'
      ? ok({ kind: 'refused', reason: verdict.reason })
      : invalid('a refusal without a reason');
  }
  if (verdict.kind === 'reply') {
    const reply = responseOf(verdict.reply);
    return reply === undefined ? invalid('an invalid reply') : ok({ kind: 'reply', reply });
  }
  if (verdict.kind !== 'verified') return invalid('an unknown kind of verification');
  const { deliveryId, companies } = verdict;
  if (deliveryId !== undefined && typeof deliveryId !== 'string') {
    return invalid('a deliveryId that is not a string');
  }
  if (companies !== undefined && (!Array.isArray(companies) || !companies.every(isWireId))) {
    return invalid('companies that are not a list of company ids');
  }
  const reply = verdict.reply === undefined ? undefined : responseOf(verdict.reply);
  if (verdict.reply !== undefined && reply === undefined) return invalid('an invalid reply');
  return ok({
    kind: 'verified',
    deliveryId: deliveryId?.trim() === '' ? undefined : deliveryId,
    companies: companies === undefined ? undefined : new Set(companies.map((id) => id + 0)),
    reply,
  });
};

/** Calls the hook and checks its verdict; never throws. */
export const runVerificationHook = async (
  hook: (request: VerificationRequest) => Verification | Promise<Verification>,
  request: VerificationRequest,
): Promise<Result<HookDecision, HookFailure>> => {
  let verdict: Verification;
  try {
    verdict = await hook(request);
  } catch (cause) {
    return err({
      reason: `the verify hook failed: ${cause instanceof Error ? cause.message : String(cause)}`,
    });
  }
  return decisionOf(verdict);
};
