import { signWebhookPayload } from '../signing/sign-webhook-payload';
import { verifyWebhookSignature, type ReceivedHeaders } from './verify-webhook-signature';
import { WebhookVerificationError, type WebhookVerificationFailure } from './webhook-verification-error';
import { hmacSha256, signedContent, toHex } from './webhook-hmac';

// Golden vectors computed outside this code with
//   printf '%s' "<timestamp>.<body>" | openssl dgst -sha256 -hmac "<secret>"
const SECRET = 'whsec_c2VjcmV0LWZvci10ZXN0aW5nLW9ubHktMDAwMDAwMDA';
const OLD_SECRET = 'whsec_b2xkLXNlY3JldC1mb3ItdGVzdGluZy1vbmx5LTAwMDA';
const TIMESTAMP = 1735689600;
const BODY =
  '{"id":"0193f9a0-0000-7000-8000-000000000001","type":"organization.updated","occurredAt":"2025-01-01T00:00:00.000Z","payload":{"name":"Acme"}}';
const SIGNATURE_WITH_SECRET = '7a987d1e706d5a2030e6a7ffae2e173427b13dc2a2741403695ad3dd52db74be';
const SIGNATURE_WITH_OLD_SECRET = 'c7749d122fd588562461abbe8d07c6a6b64c094e6da5580bd1995e6d7e00b5d1';
const UTF8_BODY = '{"payload":{"city":"Zürich ✓"}}';
const UTF8_SIGNATURE = 'efb4b37c64e8dd1162f184d48ed049e2d32bf7a2a4ee121ed1f282b7781455f4';

const AT_TIMESTAMP = new Date(TIMESTAMP * 1000);

function headersOf(signature: string, timestamp: string | number = TIMESTAMP): Record<string, string> {
  return { 'webhook-signature': signature, 'webhook-timestamp': String(timestamp) };
}

async function failureOf(promise: Promise<unknown>): Promise<{ reason: WebhookVerificationFailure; message: string }> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  const { reason, message } = error as WebhookVerificationError;
  return { reason, message };
}

describe('signWebhookPayload', () => {
  it('signs <timestamp>.<body> with HMAC-SHA256 keyed by the whole secret, in lowercase hex', async () => {
    await expect(signWebhookPayload({ secrets: [SECRET], timestamp: TIMESTAMP, body: BODY })).resolves.toBe(
      `v1=${SIGNATURE_WITH_SECRET}`,
    );
  });

  it('signs the UTF-8 bytes of the body', async () => {
    await expect(signWebhookPayload({ secrets: [SECRET], timestamp: TIMESTAMP, body: UTF8_BODY })).resolves.toBe(
      `v1=${UTF8_SIGNATURE}`,
    );
  });

  it('gives one signature per secret, new first, during a rotation overlap', async () => {
    await expect(
      signWebhookPayload({ secrets: [SECRET, OLD_SECRET], timestamp: TIMESTAMP, body: BODY }),
    ).resolves.toBe(`v1=${SIGNATURE_WITH_SECRET} v1=${SIGNATURE_WITH_OLD_SECRET}`);
  });

  it('refuses to sign without a secret or with a timestamp that is not whole seconds', async () => {
    await expect(signWebhookPayload({ secrets: [], timestamp: TIMESTAMP, body: BODY })).rejects.toThrow(/at least one secret/);
    await expect(signWebhookPayload({ secrets: [''], timestamp: TIMESTAMP, body: BODY })).rejects.toThrow(/none of them empty/);
    await expect(signWebhookPayload({ secrets: [SECRET], timestamp: Date.now() / 1000 + 0.5, body: BODY })).rejects.toThrow(
      /whole unix seconds/,
    );
  });
});

describe('verifyWebhookSignature', () => {
  describe('accepts a genuine request and returns its event', () => {
    const event = JSON.parse(BODY);

    it('with Node-style headers (lowercase names, as IncomingHttpHeaders gives them)', async () => {
      await expect(
        verifyWebhookSignature(SECRET, headersOf(`v1=${SIGNATURE_WITH_SECRET}`), BODY, { now: AT_TIMESTAMP }),
      ).resolves.toEqual(event);
    });

    it('with a plain object in any letter case and values given as arrays', async () => {
      const headers = { 'Webhook-Signature': [`v1=${SIGNATURE_WITH_SECRET}`], 'WEBHOOK-TIMESTAMP': [String(TIMESTAMP)] };
      await expect(verifyWebhookSignature(SECRET, headers, BODY, { now: AT_TIMESTAMP })).resolves.toEqual(event);
    });

    it('with a Fetch Headers object', async () => {
      const headers = new Headers({ 'Webhook-Signature': `v1=${SIGNATURE_WITH_SECRET}`, 'Webhook-Timestamp': String(TIMESTAMP) });
      await expect(verifyWebhookSignature(SECRET, headers, BODY, { now: AT_TIMESTAMP })).resolves.toEqual(event);
    });

    it('with a Map whose names are in any letter case', async () => {
      const headers = new Map([
        ['WEBHOOK-signature', `v1=${SIGNATURE_WITH_SECRET}`],
        ['Webhook-Timestamp', String(TIMESTAMP)],
      ]);
      await expect(verifyWebhookSignature(SECRET, headers, BODY, { now: AT_TIMESTAMP })).resolves.toEqual(event);
    });

    it('with the raw body as bytes', async () => {
      const bytes = new TextEncoder().encode(UTF8_BODY);
      await expect(
        verifyWebhookSignature(SECRET, headersOf(`v1=${UTF8_SIGNATURE}`), bytes, { now: AT_TIMESTAMP }),
      ).resolves.toEqual({ payload: { city: 'Zürich ✓' } });
    });

    it('with either secret of a two-signature header, and ignores entries of other schemes', async () => {
      const headers = headersOf(`v0=deadbeef v1=${SIGNATURE_WITH_SECRET} v1=${SIGNATURE_WITH_OLD_SECRET}`);
      await expect(verifyWebhookSignature(SECRET, headers, BODY, { now: AT_TIMESTAMP })).resolves.toEqual(event);
      await expect(verifyWebhookSignature(OLD_SECRET, headers, BODY, { now: AT_TIMESTAMP })).resolves.toEqual(event);
      const other = await failureOf(
        verifyWebhookSignature('whsec_another', headers, BODY, { now: AT_TIMESTAMP }),
      );
      expect(other.reason).toBe('no_matching_signature');
    });

    it('when the two signatures arrived as repeated headers that a framework joined with a comma', async () => {
      const headers = new Headers();
      headers.append('Webhook-Signature', `v1=${SIGNATURE_WITH_OLD_SECRET}`);
      headers.append('Webhook-Signature', `v1=${SIGNATURE_WITH_SECRET}`);
      headers.set('Webhook-Timestamp', String(TIMESTAMP));
      await expect(verifyWebhookSignature(SECRET, headers, BODY, { now: AT_TIMESTAMP })).resolves.toEqual(event);
    });

    it('round trip: what signWebhookPayload signs now verifies now', async () => {
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = await signWebhookPayload({ secrets: ['whsec_round-trip'], timestamp, body: BODY });
      await expect(verifyWebhookSignature('whsec_round-trip', headersOf(signature, timestamp), BODY)).resolves.toEqual(event);
    });
  });

  describe('rejects a tampered request', () => {
    const goodHeaders = headersOf(`v1=${SIGNATURE_WITH_SECRET}`);

    it('whose body changed by one character', async () => {
      const tampered = BODY.replace('Acme', 'Acmf');
      const failure = await failureOf(verifyWebhookSignature(SECRET, goodHeaders, tampered, { now: AT_TIMESTAMP }));
      expect(failure).toEqual({
        reason: 'no_matching_signature',
        message: 'No v1 signature in Webhook-Signature matches the body and timestamp with this secret',
      });
    });

    it('whose timestamp changed, even inside the tolerance', async () => {
      const failure = await failureOf(
        verifyWebhookSignature(SECRET, headersOf(`v1=${SIGNATURE_WITH_SECRET}`, TIMESTAMP + 1), BODY, { now: AT_TIMESTAMP }),
      );
      expect(failure.reason).toBe('no_matching_signature');
    });

    it('checked with another secret', async () => {
      const failure = await failureOf(verifyWebhookSignature(OLD_SECRET, goodHeaders, BODY, { now: AT_TIMESTAMP }));
      expect(failure.reason).toBe('no_matching_signature');
    });

    it('whose signature was cut short or is not v1', async () => {
      const short = await failureOf(
        verifyWebhookSignature(SECRET, headersOf(`v1=${SIGNATURE_WITH_SECRET.slice(0, 63)}`), BODY, { now: AT_TIMESTAMP }),
      );
      expect(short.reason).toBe('no_matching_signature');
      const otherScheme = await failureOf(
        verifyWebhookSignature(SECRET, headersOf(`v2=${SIGNATURE_WITH_SECRET}`), BODY, { now: AT_TIMESTAMP }),
      );
      expect(otherScheme).toEqual({ reason: 'no_matching_signature', message: 'Webhook-Signature has no v1 signature' });
    });
  });

  describe('checks the timestamp against a tolerance, both ways', () => {
    const headers = headersOf(`v1=${SIGNATURE_WITH_SECRET}`);
    const secondsFromTimestamp = (seconds: number) => new Date((TIMESTAMP + seconds) * 1000);

    it.each([300, -300, 300.999])('accepts a clock %s seconds away from the timestamp (default 300)', async (offset) => {
      await expect(
        verifyWebhookSignature(SECRET, headers, BODY, { now: secondsFromTimestamp(offset) }),
      ).resolves.toMatchObject({ type: 'organization.updated' });
    });

    it('refuses a timestamp more than the tolerance before now', async () => {
      const failure = await failureOf(verifyWebhookSignature(SECRET, headers, BODY, { now: secondsFromTimestamp(301) }));
      expect(failure).toEqual({
        reason: 'timestamp_too_old',
        message: 'Webhook-Timestamp is too old (more than 300 seconds before now)',
      });
    });

    it('refuses a timestamp more than the tolerance after now', async () => {
      const failure = await failureOf(verifyWebhookSignature(SECRET, headers, BODY, { now: secondsFromTimestamp(-301) }));
      expect(failure).toEqual({
        reason: 'timestamp_too_new',
        message: 'Webhook-Timestamp is too new (more than 300 seconds after now)',
      });
    });

    it('uses the tolerance given', async () => {
      const options = { toleranceSeconds: 10, now: secondsFromTimestamp(10) };
      await expect(verifyWebhookSignature(SECRET, headers, BODY, options)).resolves.toMatchObject({ id: expect.any(String) });
      const failure = await failureOf(
        verifyWebhookSignature(SECRET, headers, BODY, { toleranceSeconds: 10, now: secondsFromTimestamp(11) }),
      );
      expect(failure.reason).toBe('timestamp_too_old');
    });

    it('checks the timestamp before the signature, so a replayed old request says why', async () => {
      const failure = await failureOf(
        verifyWebhookSignature(SECRET, headersOf('v1=00'), BODY, { now: secondsFromTimestamp(10_000) }),
      );
      expect(failure.reason).toBe('timestamp_too_old');
    });

    it.each(['1735689600.5', '-1735689600', 'abc', '1735689600, 1735689600', '1e9'])(
      'refuses the timestamp %p',
      async (timestamp) => {
        const failure = await failureOf(
          verifyWebhookSignature(SECRET, headersOf(`v1=${SIGNATURE_WITH_SECRET}`, timestamp), BODY, { now: AT_TIMESTAMP }),
        );
        expect(failure).toEqual({ reason: 'invalid_timestamp', message: 'Webhook-Timestamp must be whole unix seconds' });
      },
    );
  });

  describe('says which header is missing', () => {
    it.each<[string, ReceivedHeaders, string]>([
      ['no timestamp', { 'webhook-signature': `v1=${SIGNATURE_WITH_SECRET}` }, 'Missing Webhook-Timestamp header'],
      ['no signature', { 'webhook-timestamp': String(TIMESTAMP) }, 'Missing Webhook-Signature header'],
      ['an empty signature', new Headers({ 'webhook-signature': ' ', 'webhook-timestamp': String(TIMESTAMP) }), 'Missing Webhook-Signature header'],
      ['nothing', new Map(), 'Missing Webhook-Timestamp header'],
    ])('%s', async (_case, headers, message) => {
      await expect(failureOf(verifyWebhookSignature(SECRET, headers, BODY, { now: AT_TIMESTAMP }))).resolves.toEqual({
        reason: 'missing_header',
        message,
      });
    });
  });

  describe('returns only a JSON object', () => {
    async function signedHeaders(body: string | Uint8Array): Promise<Record<string, string>> {
      return headersOf(`v1=${toHex(await hmacSha256(SECRET, signedContent(String(TIMESTAMP), body)))}`);
    }

    it.each([
      ['not JSON', 'not json', 'Body is not JSON'],
      ['a JSON array', '[1,2]', 'Body is not a JSON object'],
      ['JSON null', 'null', 'Body is not a JSON object'],
    ])('refuses a correctly signed body that is %s', async (_case, body, message) => {
      const failure = await failureOf(verifyWebhookSignature(SECRET, await signedHeaders(body), body, { now: AT_TIMESTAMP }));
      expect(failure).toEqual({ reason: 'invalid_body', message });
    });

    it('refuses a correctly signed byte body that is not UTF-8', async () => {
      const bytes = new Uint8Array([0x7b, 0xff, 0x7d]);
      const failure = await failureOf(verifyWebhookSignature(SECRET, await signedHeaders(bytes), bytes, { now: AT_TIMESTAMP }));
      expect(failure).toEqual({ reason: 'invalid_body', message: 'Body is not valid UTF-8' });
    });
  });

  it('refuses to run without a secret or with a negative tolerance', async () => {
    const headers = headersOf(`v1=${SIGNATURE_WITH_SECRET}`);
    await expect(verifyWebhookSignature('', headers, BODY)).rejects.toThrow(TypeError);
    await expect(verifyWebhookSignature(SECRET, headers, BODY, { toleranceSeconds: -1 })).rejects.toThrow(TypeError);
  });
});
