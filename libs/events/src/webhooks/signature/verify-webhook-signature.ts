import type { EventEnvelope } from '@mrp/platform';
import { WEBHOOK_HEADERS } from './webhook-headers';
import { constantTimeEqual, hmacSha256, signedContent, toHex } from './webhook-hmac';
import { WebhookVerificationError } from './webhook-verification-error';

/** The body of a webhook request: the event object of DESIGN 8. */
export type WebhookEvent<TPayload = unknown> = EventEnvelope<string, TPayload>;

type HeaderValue = string | readonly string[] | undefined;

/**
 * Request headers as frameworks hand them over: a Fetch `Headers`, Node's `IncomingHttpHeaders`
 * (or any plain object), or a Map. Names are looked up case-insensitively in all three.
 */
export type ReceivedHeaders =
  | { get(name: string): string | null }
  | ReadonlyMap<string, HeaderValue>
  | Readonly<Record<string, HeaderValue>>;

export interface VerifyWebhookOptions {
  /** How far `Webhook-Timestamp` may be from now, either way. Default 300 seconds. */
  toleranceSeconds?: number;
  /** The receiver's clock; default the current time. */
  now?: Date;
}

const DEFAULT_TOLERANCE_SECONDS = 300;
const WHOLE_SECONDS = /^\d{1,15}$/;

function joinValues(value: HeaderValue): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}

function headerValue(headers: ReceivedHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  if (headers instanceof Map) {
    for (const [key, value] of headers as ReadonlyMap<string, HeaderValue>) {
      if (key.toLowerCase() === wanted) return joinValues(value);
    }
    return undefined;
  }
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  for (const [key, value] of Object.entries(headers as Readonly<Record<string, HeaderValue>>)) {
    if (key.toLowerCase() === wanted) return joinValues(value);
  }
  return undefined;
}

function requiredHeader(headers: ReceivedHeaders, name: string): string {
  const value = headerValue(headers, name)?.trim();
  if (!value) throw new WebhookVerificationError('missing_header', `Missing ${name} header`);
  return value;
}

function checkTimestamp(raw: string, toleranceSeconds: number, now: Date): void {
  if (!WHOLE_SECONDS.test(raw)) {
    throw new WebhookVerificationError('invalid_timestamp', `${WEBHOOK_HEADERS.timestamp} must be whole unix seconds`);
  }
  const ageSeconds = Math.floor(now.getTime() / 1000) - Number(raw);
  if (ageSeconds > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `${WEBHOOK_HEADERS.timestamp} is too old (more than ${toleranceSeconds} seconds before now)`,
    );
  }
  if (-ageSeconds > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_too_new',
      `${WEBHOOK_HEADERS.timestamp} is too new (more than ${toleranceSeconds} seconds after now)`,
    );
  }
}

/** The `v1` values of `v1=<hex> v1=<hex>`; entries of other schemes are ignored, as are duplicates joined with commas. */
function v1Signatures(header: string): string[] {
  return header
    .split(/[\s,]+/)
    .filter((entry) => entry.startsWith('v1='))
    .map((entry) => entry.slice(3).toLowerCase());
}

function parseEvent<TPayload>(rawBody: string | Uint8Array): WebhookEvent<TPayload> {
  let text: string;
  try {
    text = typeof rawBody === 'string' ? rawBody : new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
  } catch {
    throw new WebhookVerificationError('invalid_body', 'Body is not valid UTF-8');
  }
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('invalid_body', 'Body is not JSON');
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new WebhookVerificationError('invalid_body', 'Body is not a JSON object');
  }
  return event as WebhookEvent<TPayload>;
}

/**
 * Checks a received webhook and returns its event. `rawBody` must be the body exactly as received
 * (read it before any JSON parser touches it). Throws WebhookVerificationError when the timestamp is
 * missing or outside the tolerance, when no `v1` signature matches, or when the body is not JSON.
 */
export async function verifyWebhookSignature<TPayload = unknown>(
  secret: string,
  headers: ReceivedHeaders,
  rawBody: string | Uint8Array,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = new Date() }: VerifyWebhookOptions = {},
): Promise<WebhookEvent<TPayload>> {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TypeError('verifyWebhookSignature needs the endpoint secret (whsec_...)');
  }
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new TypeError('toleranceSeconds must be a number of seconds, zero or more');
  }
  const timestamp = requiredHeader(headers, WEBHOOK_HEADERS.timestamp);
  const signatureHeader = requiredHeader(headers, WEBHOOK_HEADERS.signature);
  checkTimestamp(timestamp, toleranceSeconds, now);

  const candidates = v1Signatures(signatureHeader);
  if (candidates.length === 0) {
    throw new WebhookVerificationError('no_matching_signature', `${WEBHOOK_HEADERS.signature} has no v1 signature`);
  }
  const expected = toHex(await hmacSha256(secret, signedContent(timestamp, rawBody)));
  // Every candidate is compared, so the time taken does not say which one matched.
  let matched = false;
  for (const candidate of candidates) matched = constantTimeEqual(candidate, expected) || matched;
  if (!matched) {
    throw new WebhookVerificationError(
      'no_matching_signature',
      `No v1 signature in ${WEBHOOK_HEADERS.signature} matches the body and timestamp with this secret`,
    );
  }
  return parseEvent<TPayload>(rawBody);
}
