import { relative } from 'node:path';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { verifyWebhookSignature, WebhookVerificationError } from '@mrp/events/receiver';

// The golden vector of webhook-signature.spec.ts.
const SECRET = 'whsec_c2VjcmV0LWZvci10ZXN0aW5nLW9ubHktMDAwMDAwMDA';
const TIMESTAMP = '1735689600';
const BODY =
  '{"id":"0193f9a0-0000-7000-8000-000000000001","type":"organization.updated","occurredAt":"2025-01-01T00:00:00.000Z","payload":{"name":"Acme"}}';
const SIGNATURE = 'v1=7a987d1e706d5a2030e6a7ffae2e173427b13dc2a2741403695ad3dd52db74be';

describe('@mrp/events/receiver', () => {
  it('exports the verifier and its error', async () => {
    const headers = { 'webhook-signature': SIGNATURE, 'webhook-timestamp': TIMESTAMP };
    await expect(verifyWebhookSignature(SECRET, headers, BODY, { now: new Date(Number(TIMESTAMP) * 1000) })).resolves.toMatchObject({
      type: 'organization.updated',
    });
    await expect(verifyWebhookSignature(SECRET, headers, BODY)).rejects.toBeInstanceOf(WebhookVerificationError);
  });

  it('bundles for a browser from its own few files, and runs with nothing but Web APIs', async () => {
    const entry = `${__dirname}/receiver.ts`;
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'receiver',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const bundled = Object.keys(result.metafile.inputs).map((input) => relative(__dirname, input)).sort();
    expect(bundled).toEqual([
      'receiver.ts',
      'webhooks/signature/verify-webhook-signature.ts',
      'webhooks/signature/webhook-headers.ts',
      'webhooks/signature/webhook-hmac.ts',
      'webhooks/signature/webhook-verification-error.ts',
    ]);

    // A context with no require, process or Buffer: only what a browser offers.
    const browserLike = { crypto: globalThis.crypto, TextEncoder, TextDecoder, Headers, Date, JSON, Promise };
    const code = result.outputFiles[0].text;
    const exported = runInNewContext(`${code};receiver`, browserLike) as typeof import('./receiver');
    const headers = new Headers({ 'Webhook-Signature': SIGNATURE, 'Webhook-Timestamp': TIMESTAMP });
    const event = await exported.verifyWebhookSignature(SECRET, headers, BODY, { now: new Date(Number(TIMESTAMP) * 1000) });
    expect(event.payload).toEqual({ name: 'Acme' });
  });
});
