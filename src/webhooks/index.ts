/**
 * `signfold/webhooks`: receiving webhook deliveries with any HTTP framework
 * (also exported from `signfold`). See docs/webhooks.md.
 */
export { DEFAULT_DELIVERY_HEADER } from './delivery-id.js';
export {
  handleNodeRequest,
  type NodeWebhookRequest,
  type NodeWebhookResponse,
} from './node-request.js';
export { signWebhookBody } from './sign-payload.js';
export { DEFAULT_SIGNATURE_HEADER } from './signature-options.js';
export { createWebhookHandler } from './webhook-handler.js';
export type {
  BoundSecret,
  SignatureAlgorithm,
  SignatureEncoding,
  SignatureOptions,
  SignatureSchemeName,
  StandardWebhooksOptions,
  TimestampOptions,
  Verification,
  VerificationRequest,
  WebhookHandler,
  WebhookHandlerOptions,
  WebhookHeaders,
  WebhookOutcome,
  WebhookReply,
  WebhookRequest,
  WebhookResponse,
} from './webhook-types.js';
