/*
 * The sender's side of the Standard Webhooks scheme (../signature/standard-webhooks.ts): Node's
 * HMAC, as signWebhookPayload, since Web Crypto cost a key import and a promise per signature.
 */
import { createHmac } from 'node:crypto';
import { standardWebhookKey } from '../signature/standard-webhooks';

export interface SignStandardWebhookInput {
  /** The current secret first, then the previous one while a rotation overlap lasts. */
  secrets: readonly string[];
  /** The message id, the same on every attempt of a delivery. */
  id: string;
  /** Unix seconds, the value sent in `webhook-timestamp`. */
  timestamp: number;
  /** The exact body sent. */
  body: string;
}

/** The `webhook-signature` value: `v1,<base64>` per secret, space-separated, in the order given. */
export async function signStandardWebhook({ secrets, id, timestamp, body }: SignStandardWebhookInput): Promise<string> {
  if (secrets.length === 0) throw new Error('signStandardWebhook needs at least one secret');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new Error('signStandardWebhook needs the timestamp in whole unix seconds');
  const content = `${id}.${timestamp}.${body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', standardWebhookKey(secret)).update(content).digest('base64')}`).join(' ');
}
