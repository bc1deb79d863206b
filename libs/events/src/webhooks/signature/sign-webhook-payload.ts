import { hmacSha256, signedContent, toHex } from './webhook-hmac';

export interface SignWebhookPayloadInput {
  /** The current secret first, then the previous one while a rotation overlap lasts. */
  secrets: readonly string[];
  /** Unix seconds, the value sent in `Webhook-Timestamp`. */
  timestamp: number;
  /** The exact body sent. */
  body: string;
}

/** The `Webhook-Signature` value: `v1=<hex>` per secret, space-separated, in the order given. */
export async function signWebhookPayload({ secrets, timestamp, body }: SignWebhookPayloadInput): Promise<string> {
  if (secrets.length === 0 || secrets.some((secret) => secret.length === 0)) {
    throw new Error('signWebhookPayload needs at least one secret, none of them empty');
  }
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new Error('signWebhookPayload needs the timestamp in whole unix seconds');
  }
  const content = signedContent(String(timestamp), body);
  const signatures = await Promise.all(secrets.map(async (secret) => `v1=${toHex(await hmacSha256(secret, content))}`));
  return signatures.join(' ');
}
