import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookVerificationError } from "./errors.js";
import type { BulkCompletion, BulkFailure, CrawlPageEvent, CrawlPageFailed, CrawlStarted, CrawlStatus, MonitorCheckReport } from "./types.js";

/** The header naming the event of a delivery. */
export const WEBHOOK_EVENT_HEADER = "x-trawl-webhook";
/** The header carrying `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const WEBHOOK_SIGNATURE_HEADER = "x-trawl-signature";
/** Deliveries signed longer ago than this (either way) are refused by default: a replayed request carries an old t. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A verified delivery: a bulk job's outcome, a crawl's event or a monitor check's report. */
export type WebhookEvent =
  | { type: "content-all-results"; payload: BulkCompletion; signedAt: Date }
  | { type: "content-bulk-failure"; payload: BulkFailure; signedAt: Date }
  | { type: "crawl-started"; payload: CrawlStarted; signedAt: Date }
  | { type: "crawl-page"; payload: CrawlPageEvent; signedAt: Date }
  | { type: "crawl-page-failed"; payload: CrawlPageFailed; signedAt: Date }
  | { type: "crawl-completed"; payload: CrawlStatus; signedAt: Date }
  | { type: "monitor-check"; payload: MonitorCheckReport; signedAt: Date };

export interface VerifyOptions {
  /** The account's webhook signing secret (whsec_...). */
  secret: string;
  /** The raw request body, exactly as received: the signature covers these bytes, not a re-serialised object. */
  body: string | Uint8Array;
  /** The X-Trawl-Signature header. */
  signature: string | null | undefined;
  /** Refuse deliveries signed more than this many seconds from now (default 300; 0 turns the check off). */
  toleranceSeconds?: number;
  /** The time to check against (default: now). */
  now?: Date;
}

function bytes(body: string | Uint8Array): Buffer {
  return typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** The X-Trawl-Signature value Trawl would send for body at time t (unix seconds). */
export function signWebhook(secret: string, body: string | Uint8Array, t: number): string {
  const mac = createHmac("sha256", secret).update(`${t}.`).update(bytes(body)).digest("hex");
  return `t=${t},v1=${mac}`;
}

/**
 * Checks that a delivery was signed by Trawl with the secret and recently;
 * throws WebhookVerificationError saying what is wrong otherwise. Every v1
 * entry of the header is tried, so a header carrying several signatures
 * verifies when one of them does.
 */
export function verifyWebhookSignature(opts: VerifyOptions): Date {
  const header = opts.signature ?? "";
  let t: string | undefined;
  const sigs: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t") t = value;
    else if (key === "v1") sigs.push(value);
  }
  if (t === undefined || !/^\d{1,15}$/.test(t) || sigs.length === 0) {
    throw new WebhookVerificationError("the X-Trawl-Signature header is missing or malformed");
  }
  const signedAt = new Date(Number(t) * 1000);
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (tolerance > 0) {
    const now = (opts.now ?? new Date()).getTime();
    if (Math.abs(now - signedAt.getTime()) > tolerance * 1000) {
      throw new WebhookVerificationError("the delivery was signed too long ago (or in the future)");
    }
  }
  const want = createHmac("sha256", opts.secret).update(`${t}.`).update(bytes(opts.body)).digest();
  for (const sig of sigs) {
    if (!/^[0-9a-f]{64}$/i.test(sig)) continue;
    if (timingSafeEqual(Buffer.from(sig, "hex"), want)) return signedAt;
  }
  throw new WebhookVerificationError("the signature does not match the body and the secret");
}

/** Like verifyWebhookSignature, but answers true or false. */
export function isWebhookAuthentic(opts: VerifyOptions): boolean {
  try {
    verifyWebhookSignature(opts);
    return true;
  } catch (err) {
    if (err instanceof WebhookVerificationError) return false;
    throw err;
  }
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const rec = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? v.join(",") : v;
}

/**
 * Verifies a delivery and returns its event and payload. headers may be a
 * fetch Headers or node:http's IncomingMessage.headers; body must be the raw
 * bytes as received.
 */
export function parseWebhook(opts: {
  secret: string;
  headers: HeaderSource;
  body: string | Uint8Array;
  toleranceSeconds?: number;
  now?: Date;
}): WebhookEvent {
  const signedAt = verifyWebhookSignature({
    secret: opts.secret,
    body: opts.body,
    signature: header(opts.headers, WEBHOOK_SIGNATURE_HEADER),
    ...(opts.toleranceSeconds === undefined ? {} : { toleranceSeconds: opts.toleranceSeconds }),
    ...(opts.now === undefined ? {} : { now: opts.now }),
  });
  const type = header(opts.headers, WEBHOOK_EVENT_HEADER);
  let payload: unknown;
  try {
    payload = JSON.parse(typeof opts.body === "string" ? opts.body : bytes(opts.body).toString("utf8"));
  } catch {
    throw new WebhookVerificationError("the body is not JSON");
  }
  if (payload === null || typeof payload !== "object") throw new WebhookVerificationError("the body is not a JSON object");
  switch (type) {
    case "content-all-results":
      return { type, payload: payload as BulkCompletion, signedAt };
    case "content-bulk-failure":
      return { type, payload: payload as BulkFailure, signedAt };
    case "crawl-started":
      return { type, payload: payload as CrawlStarted, signedAt };
    case "crawl-page":
      return { type, payload: payload as CrawlPageEvent, signedAt };
    case "crawl-page-failed":
      return { type, payload: payload as CrawlPageFailed, signedAt };
    case "crawl-completed":
      return { type, payload: payload as CrawlStatus, signedAt };
    case "monitor-check":
      return { type, payload: payload as MonitorCheckReport, signedAt };
    default:
      throw new WebhookVerificationError("the X-Trawl-Webhook header names no known event");
  }
}

/**
 * Verifies a delivery received as a fetch Request (servers built on the
 * Fetch API: route handlers, Hono, Bun) and returns its event. The body is
 * read as bytes, so it is checked exactly as it was signed.
 */
export async function parseWebhookRequest(
  request: Request,
  secret: string,
  opts: { toleranceSeconds?: number; now?: Date } = {},
): Promise<WebhookEvent> {
  const body = new Uint8Array(await request.arrayBuffer());
  return parseWebhook({ secret, headers: request.headers, body, ...opts });
}
