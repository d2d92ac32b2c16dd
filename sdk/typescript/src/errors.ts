import type { FailureReason } from "./types.js";

/**
 * What a billed call cost, from the X-Credits-Charged and X-Credits-Remaining
 * headers. Both are null on the free endpoints, which send neither; remaining
 * is null when Trawl could not read the balance (a 429, or Trawl busy).
 */
export interface CreditHeaders {
  /** Credits this call charged: 0 on every failure and on a replay. */
  charged: number | null;
  /** The balance after the call. */
  remaining: number | null;
}

/** The per-minute limit of the endpoint group, from the RateLimit-* headers. */
export interface RateLimit {
  limit: number;
  remaining: number;
  /** Seconds until the window frees a request. */
  reset: number | null;
}

/** Advisory headers: set when the minute's limit or the balance runs low. */
export interface Warnings {
  /** X-RateLimit-Warning: 80% of the minute's limit is used. */
  rateLimit: string | null;
  /** X-Monthly-Quota-Warning: the balance is below the low threshold. */
  monthlyQuota: string | null;
}

/** What every answer says besides its body. */
export interface AnswerMeta {
  /** The HTTP status (0 when no answer arrived). */
  status: number;
  credits: CreditHeaders;
  rateLimit: RateLimit | null;
  warnings: Warnings;
  /** X-Request-Id, to quote when asking about a call. */
  requestId: string | null;
  /** True when the answer is the stored one of an earlier call with the same Idempotency-Key (and was not charged again). */
  replayed: boolean;
  /**
   * X-Trawl-Cache: "hit" when the answer (every page of it) came from the
   * page cache, "miss" when some of it was fetched; null when the call says
   * nothing of the cache (no max_age-capable call, no cache on the server, a replay).
   */
  cache: "hit" | "miss" | null;
}

/** A successful answer: its body and what the headers said. */
export interface Answer<T> extends AnswerMeta {
  data: T;
}

/**
 * An answer Trawl refused or could not give, or no answer at all (status 0:
 * the connection failed or the attempt timed out; the cause is in `cause`).
 * Thrown once the retry policy gives up, or at once when retrying cannot help.
 */
export class TrawlError extends Error implements AnswerMeta {
  override readonly name = "TrawlError";
  readonly status: number;
  /** The stable code of a 503 (see FailureReason); null on other answers. */
  readonly reason: FailureReason | null;
  /** Whether the same request may succeed later: 429, 409 and 5xx, except a 503 whose reason will not go away (a captcha, a page that is not HTML). */
  readonly retryable: boolean;
  /** Each invalid field and what is wrong with it (422). */
  readonly errors: Record<string, string[]> | null;
  /** The credits a 402 Insufficient Credits needed, and the balance it found. */
  readonly required: number | null;
  readonly balance: number | null;
  /** Retry-After, in milliseconds (429, and a busy 503). */
  readonly retryAfterMs: number | null;
  /** The parsed body, for fields this client does not know yet. */
  readonly body: unknown;
  /** How many attempts were made. */
  readonly attempts: number;
  readonly credits: CreditHeaders;
  readonly rateLimit: RateLimit | null;
  readonly warnings: Warnings;
  readonly requestId: string | null;
  readonly replayed: boolean;
  readonly cache: "hit" | "miss" | null;

  constructor(init: {
    message: string;
    meta: AnswerMeta;
    reason?: FailureReason | null;
    retryable: boolean;
    errors?: Record<string, string[]> | null;
    required?: number | null;
    balance?: number | null;
    retryAfterMs?: number | null;
    body?: unknown;
    attempts?: number;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.meta.status;
    this.credits = init.meta.credits;
    this.rateLimit = init.meta.rateLimit;
    this.warnings = init.meta.warnings;
    this.requestId = init.meta.requestId;
    this.replayed = init.meta.replayed;
    this.cache = init.meta.cache;
    this.reason = init.reason ?? null;
    this.retryable = init.retryable;
    this.errors = init.errors ?? null;
    this.required = init.required ?? null;
    this.balance = init.balance ?? null;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.body = init.body ?? null;
    this.attempts = init.attempts ?? 1;
  }
}

/** A webhook delivery whose signature, age or body does not verify. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}
