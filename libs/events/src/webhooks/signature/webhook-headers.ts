/** Header names of a webhook request (DESIGN 8), as a receiver reads them. */
export const WEBHOOK_HEADERS = {
  signature: 'Webhook-Signature',
  timestamp: 'Webhook-Timestamp',
  deliveryId: 'Webhook-Delivery-Id',
  idempotencyKey: 'Idempotency-Key',
  attempt: 'Webhook-Attempt',
  sequence: 'Webhook-Sequence',
} as const;
