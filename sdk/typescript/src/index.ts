// Trawl's TypeScript client: a fetch-based client of the JSON API with the
// API's retry policy, bulk-job polling, transaction pagination and webhook
// verification. No runtime dependencies; Node 18 or later.
export { Trawl } from "./client.js";
export type { TrawlOptions, CallOptions, PageOptions, ContentOptions, RetryInfo, WaitOptions, TransactionsOptions } from "./client.js";
export { TrawlError, WebhookVerificationError } from "./errors.js";
export type { Answer, AnswerMeta, CreditHeaders, RateLimit, Warnings } from "./errors.js";
export {
  parseWebhook,
  parseWebhookRequest,
  verifyWebhookSignature,
  isWebhookAuthentic,
  signWebhook,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  DEFAULT_TOLERANCE_SECONDS,
} from "./webhook.js";
export type { WebhookEvent, VerifyOptions } from "./webhook.js";
export type * from "./types.js";
export type { paths, components, operations, webhooks } from "./schema.js";
