import type { WebhookDelivery } from '../api/webhook-types';

/** A delivery's last answer in one line: the status code, or why there was none. */
export function describeOutcome(delivery: Pick<WebhookDelivery, 'lastStatusCode' | 'lastError'>): string {
  if (delivery.lastStatusCode !== null) return `HTTP ${delivery.lastStatusCode}${delivery.lastError ? `: ${delivery.lastError}` : ''}`;
  return delivery.lastError ?? '—';
}
