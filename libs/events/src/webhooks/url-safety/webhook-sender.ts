import { performance } from 'node:perf_hooks';
import { Agent, type Dispatcher } from 'undici';
import type { AddressPolicy, WebhookProtocol } from './address-policy';
import { guardedLookup } from './guarded-lookup';
import { ipLiteralOf, systemLookup, type HostLookup } from './host-lookup';
import { WebhookSendError } from './webhook-send-error';

export interface WebhookSenderOptions {
  policy: AddressPolicy;
  /** Bounds the whole request: connect, headers and body. */
  timeoutMs?: number;
  lookup?: HostLookup;
  userAgent: string;
  /** How much of the response body is read; the rest is never read. */
  maxResponseBytes?: number;
  /** Open connections per endpoint origin; default unlimited. */
  connectionsPerOrigin?: number;
}

export interface WebhookRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
}

export interface WebhookResponse {
  statusCode: number;
  /** Lowercase names; at most MAX_RESPONSE_HEADERS, each value cut to MAX_RESPONSE_HEADER_CHARS. */
  headers: Record<string, string>;
  /** The first maxResponseBytes of the body, as text. */
  body: string;
  durationMs: number;
}

export interface WebhookSender {
  /** POSTs the body; any HTTP response (3xx included: redirects are not followed) resolves, anything else throws WebhookSendError. */
  send(request: WebhookRequest): Promise<WebhookResponse>;
  close(): Promise<void>;
}

const MAX_RESPONSE_HEADERS = 50;
const MAX_RESPONSE_HEADER_CHARS = 1024;
/** A receiver's cookies are its credentials, not something a delivery log should keep. */
const UNKEPT_RESPONSE_HEADERS = new Set(['set-cookie']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const REFUSED_CODE = 'ERR_WEBHOOK_ADDRESS_REFUSED';

/** The URL as undici will dial it, or a refusal when the scheme or an IP literal is not allowed. */
function targetOf(rawUrl: string, policy: AddressPolicy): URL & { protocol: WebhookProtocol } {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new WebhookSendError('refused-address', 'The endpoint URL is not a valid URL');
  }
  if (policy.schemeRefusal(url.protocol) !== null) {
    throw new WebhookSendError('refused-address', `The endpoint URL's scheme is not allowed (${policy.mode})`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new WebhookSendError('refused-address', 'The endpoint URL must not carry a user name or password');
  }
  const protocol = url.protocol as WebhookProtocol;
  // Node connects to an IP literal without calling lookup, so the literal is judged here.
  const literal = ipLiteralOf(url);
  if (literal !== null && policy.refusal(literal, protocol) !== null) {
    throw new WebhookSendError('refused-address', 'The endpoint address is not allowed');
  }
  return url as URL & { protocol: WebhookProtocol };
}

function requestHeaders(given: Readonly<Record<string, string>>, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) headers[name.toLowerCase()] = value;
  headers['content-type'] = 'application/json';
  headers['user-agent'] = userAgent;
  return headers;
}

function keptHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const kept: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (kept.length === MAX_RESPONSE_HEADERS) break;
    const lowercase = name.toLowerCase();
    if (value === undefined || UNKEPT_RESPONSE_HEADERS.has(lowercase)) continue;
    kept.push([lowercase, (Array.isArray(value) ? value.join(', ') : value).slice(0, MAX_RESPONSE_HEADER_CHARS)]);
  }
  return Object.fromEntries(kept);
}

/** Reads at most `limit` bytes, then destroys the stream: a huge body is never buffered or drained. */
async function readAtMost(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let read = 0;
  if (limit > 0) {
    for await (const chunk of body) {
      const part = chunk.subarray(0, limit - read);
      read += part.length;
      // stream: true holds back a character cut in half at the limit instead of mangling it.
      text += decoder.decode(part, { stream: true });
      if (read >= limit) break;
    }
  }
  body.destroy();
  // PostgreSQL text cannot hold NUL.
  return text.replaceAll('\u0000', '\uFFFD');
}

/** The codes along an error's cause chain. Not `instanceof Error`: Node's errors may come from another realm. */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') codes.push(code);
    current = cause;
  }
  return codes;
}

function sendErrorOf(error: unknown, timedOut: boolean, timeoutMs: number): WebhookSendError {
  if (error instanceof WebhookSendError) return error;
  const codes = errorCodes(error);
  if (codes.includes(REFUSED_CODE)) {
    return new WebhookSendError('refused-address', 'The endpoint resolves to an address that is not allowed');
  }
  if (timedOut || codes.some((code) => TIMEOUT_CODES.has(code))) {
    return new WebhookSendError('timeout', `No complete response within ${timeoutMs} ms`);
  }
  // The code alone (ECONNREFUSED, ENOTFOUND, ...): Node's messages name the address dialled.
  return new WebhookSendError('connection', codes.length > 0 ? `Connection failed (${codes[0]})` : 'Connection failed');
}

/**
 * The one way webhooks leave the platform. Each scheme has its own undici Agent whose connect.lookup
 * checks every resolved address against the policy at dial time (no DNS-rebinding window); IP
 * literals are checked before sending. Redirects are never followed.
 */
export function createWebhookSender({
  policy,
  timeoutMs = 10_000,
  lookup = systemLookup,
  userAgent,
  maxResponseBytes = 4096,
  connectionsPerOrigin,
}: WebhookSenderOptions): WebhookSender {
  const agentFor = (protocol: WebhookProtocol) =>
    new Agent({
      connect: { lookup: guardedLookup(policy, protocol, lookup), timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connections: connectionsPerOrigin ?? null,
    });
  const agents: Record<WebhookProtocol, Agent> = { 'http:': agentFor('http:'), 'https:': agentFor('https:') };

  async function send({ url: rawUrl, headers, body }: WebhookRequest): Promise<WebhookResponse> {
    const url = targetOf(rawUrl, policy);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const started = performance.now();
    try {
      const response = await agents[url.protocol].request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: requestHeaders(headers, userAgent),
        body,
        signal: controller.signal,
      });
      const responseBody = await readAtMost(response.body, maxResponseBytes);
      return {
        statusCode: response.statusCode,
        headers: keptHeaders(response.headers),
        body: responseBody,
        durationMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      throw sendErrorOf(error, controller.signal.aborted, timeoutMs);
    } finally {
      clearTimeout(timer);
    }
  }

  async function close(): Promise<void> {
    await Promise.all(Object.values(agents).map((agent) => agent.close()));
  }

  return { send, close };
}
