export type WebhookSendErrorKind = 'refused-address' | 'timeout' | 'connection';

/**
 * A webhook request that got no HTTP response. The message is kept to what the endpoint's owner may
 * read in the delivery log: no secret, no resolved address.
 */
export class WebhookSendError extends Error {
  override readonly name = 'WebhookSendError';

  constructor(
    readonly kind: WebhookSendErrorKind,
    message: string,
  ) {
    super(message);
  }
}
