import { Webhook } from 'standardwebhooks';
import { generateEndpointSecret } from '../secrets/endpoint-secret';
import { signStandardWebhook } from '../signing/sign-standard-webhook';
import { STANDARD_WEBHOOK_HEADERS } from './standard-webhooks';

describe('Standard Webhooks signatures', () => {
  const body = JSON.stringify({ id: 'evt', type: 'data-models.record-created', payload: { title: 'Ünïcode ✓' } });
  const headersFor = (signature: string, id: string, timestamp: number) => ({
    [STANDARD_WEBHOOK_HEADERS.id]: id,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [STANDARD_WEBHOOK_HEADERS.signature]: signature,
  });

  it("are accepted by the specification's own verifier, for every secret the platform makes", async () => {
    for (let n = 0; n < 50; n++) {
      const secret = generateEndpointSecret();
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = await signStandardWebhook({ secrets: [secret], id: `msg_${n}`, timestamp, body });
      expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(new Webhook(secret).verify(body, headersFor(signature, `msg_${n}`, timestamp))).toEqual(JSON.parse(body));
    }
  });

  it('carry one signature per secret during a rotation overlap, each verifying with its secret', async () => {
    const [current, previous] = [generateEndpointSecret(), generateEndpointSecret()];
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await signStandardWebhook({ secrets: [current, previous], id: 'msg_1', timestamp, body });
    expect(signature.split(' ')).toHaveLength(2);
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(body, headersFor(signature, 'msg_1', timestamp))).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateEndpointSecret()).verify(body, headersFor(signature, 'msg_1', timestamp))).toThrow();
  });

  it('fail verification when the id, the timestamp or a byte of the body differs', async () => {
    const secret = generateEndpointSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await signStandardWebhook({ secrets: [secret], id: 'msg_1', timestamp, body });
    expect(() => new Webhook(secret).verify(body, headersFor(signature, 'msg_2', timestamp))).toThrow();
    expect(() => new Webhook(secret).verify(body, headersFor(signature, 'msg_1', timestamp + 1))).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headersFor(signature, 'msg_1', timestamp))).toThrow();
  });
});
