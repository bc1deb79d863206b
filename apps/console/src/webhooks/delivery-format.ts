import type { WebhookDelivery } from '../api/webhook-types';

/** How much of a receiver's answer fits on a result line; the whole kept body is shown beside it. */
const REASON_MAX_CHARACTERS = 120;

/** The first non-blank line of a receiver's answer, shortened to fit a result line. */
export function firstLineOf(body: string | null | undefined): string | null {
  const line = body
    ?.split(/\r?\n/)
    .map((candidate) => candidate.trim())
    .find((candidate) => candidate !== '');
  if (!line) return null;
  return line.length > REASON_MAX_CHARACTERS ? `${line.slice(0, REASON_MAX_CHARACTERS - 1)}…` : line;
}

/**
 * A delivery's last answer in one line: the status code once, then the receiver's reason (the
 * worker's note when it says more than the status, else the first line of the body kept), or why
 * there was no answer.
 */
export function describeOutcome(delivery: Pick<WebhookDelivery, 'lastStatusCode' | 'lastError'>, responseBody?: string | null): string {
  if (delivery.lastStatusCode === null) return delivery.lastError ?? '—';
  const status = `HTTP ${delivery.lastStatusCode}`;
  const note = delivery.lastError?.startsWith(status) ? delivery.lastError.slice(status.length).replace(/^[:\s]+/, '') : delivery.lastError;
  const reason = note || firstLineOf(responseBody);
  return reason ? `${status}: ${reason}` : status;
}

/** What the worker keeps of a response body (its sender reads no further). */
export const KEPT_RESPONSE_BYTES = 4096;

/** The label of a kept response body: its size while it is all there, else that it is the first 4 KiB. */
export function describeKeptBody(body: string): string {
  const bytes = new TextEncoder().encode(body).length;
  if (bytes >= KEPT_RESPONSE_BYTES) return 'First 4 KiB of the body';
  return `Body, ${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
}
