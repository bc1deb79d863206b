import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@mrp/platform';
import { createAddressPolicy } from './address-policy';
import { checkEndpointUrl } from './check-endpoint-url';
import { fakeDns, rebindingDns } from './testing-dns';
import { createWebhookSender, type WebhookSender, type WebhookSenderOptions } from './webhook-sender';
import { WebhookSendError, type WebhookSendErrorKind } from './webhook-send-error';

interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Receiver {
  port: number;
  url: string;
  requests: ReceivedRequest[];
  /** TCP connections accepted, whether or not a request followed. */
  connections: number;
  close(): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

/** A real HTTP server on loopback that records every connection and request. */
async function startReceiver(handler: Handler = (_request, response) => response.end('ok')): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handler(request, response, body);
    });
  });
  const receiver = { requests, connections: 0 } as Receiver;
  server.on('connection', () => {
    receiver.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

const development = createAddressPolicy({ mode: 'development' });
const production = createAddressPolicy({ mode: 'production' });

const senders: WebhookSender[] = [];
const receivers: Receiver[] = [];

function sender(options: Partial<WebhookSenderOptions> = {}): WebhookSender {
  const created = createWebhookSender({ policy: development, userAgent: 'ModelRecords-Webhooks/1.0', ...options });
  senders.push(created);
  return created;
}

async function receiver(handler?: Handler): Promise<Receiver> {
  const started = await startReceiver(handler);
  receivers.push(started);
  return started;
}

afterEach(async () => {
  await Promise.all(senders.splice(0).map((each) => each.close()));
  await Promise.all(receivers.splice(0).map((each) => each.close()));
});

async function sendFailure(promise: Promise<unknown>): Promise<{ kind: WebhookSendErrorKind; message: string }> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WebhookSendError);
  const { kind, message } = error as WebhookSendError;
  return { kind, message };
}

const BODY = '{"id":"evt","type":"organization.updated","payload":{}}';

describe('createWebhookSender', () => {
  it('POSTs the body as JSON with the given headers and a User-Agent, and returns the response', async () => {
    const target = await receiver((_request, response) => {
      response.setHeader('X-Receiver', 'yes');
      response.setHeader('Set-Cookie', 'session=receiver-secret');
      response.statusCode = 202;
      response.end('accepted');
    });
    const response = await sender().send({
      url: `${target.url}/hooks/in?source=test`,
      headers: { 'Webhook-Signature': 'v1=abc', 'Webhook-Timestamp': '1735689600', 'Content-Type': 'text/plain' },
      body: BODY,
    });

    expect(response).toEqual({
      statusCode: 202,
      headers: expect.objectContaining({ 'x-receiver': 'yes', 'content-length': '8' }),
      body: 'accepted',
      durationMs: expect.any(Number),
    });
    expect(response.headers).not.toHaveProperty('set-cookie');
    expect(target.requests).toHaveLength(1);
    const [received] = target.requests;
    expect(received.method).toBe('POST');
    expect(received.url).toBe('/hooks/in?source=test');
    expect(received.body).toBe(BODY);
    expect(received.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'ModelRecords-Webhooks/1.0',
      'webhook-signature': 'v1=abc',
      'webhook-timestamp': '1735689600',
    });
  });

  it('dials the address its lookup returns for a host name', async () => {
    const target = await receiver();
    const lookup = fakeDns({ 'receiver.test': ['127.0.0.1'] });
    const response = await sender({ lookup }).send({ url: `http://receiver.test:${target.port}/`, headers: {}, body: BODY });
    expect(response.statusCode).toBe(200);
    expect(lookup.asked).toEqual(['receiver.test']);
    expect(target.requests[0].headers.host).toBe(`receiver.test:${target.port}`);
  });

  it('does not follow a redirect: a 302 is just the response', async () => {
    const elsewhere = await receiver();
    const target = await receiver((_request, response) => {
      response.writeHead(302, { Location: `${elsewhere.url}/internal` });
      response.end();
    });
    const response = await sender().send({ url: target.url, headers: {}, body: BODY });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(`${elsewhere.url}/internal`);
    expect(elsewhere.connections).toBe(0);
  });

  describe('reads at most maxResponseBytes of the body', () => {
    it('keeps the first 4 KiB of a 1 MB body', async () => {
      const big = 'x'.repeat(4096) + 'y'.repeat(1024 * 1024 - 4096);
      const target = await receiver((_request, response) => response.end(big));
      const response = await sender().send({ url: target.url, headers: {}, body: BODY });
      expect(response.body).toBe('x'.repeat(4096));
    });

    it('stops reading a body that never ends, and hangs up', async () => {
      let hungUp!: () => void;
      const receiverSawHangUp = new Promise<void>((resolve) => (hungUp = resolve));
      const target = await receiver((_request, response) => {
        response.on('close', hungUp);
        const chunk = 'z'.repeat(16 * 1024);
        const pump = () => {
          while (!response.destroyed && response.write(chunk));
          if (!response.destroyed) response.once('drain', pump);
        };
        pump();
      });
      const response = await sender().send({ url: target.url, headers: {}, body: BODY });
      expect(response.body).toBe('z'.repeat(4096));
      await receiverSawHangUp;
    });

    it('does not cut a character in half at the limit', async () => {
      const target = await receiver((_request, response) => response.end('é'.repeat(3000)));
      const response = await sender({ maxResponseBytes: 4095 }).send({ url: target.url, headers: {}, body: BODY });
      expect(response.body).toBe('é'.repeat(2047));
    });

    it('keeps no NUL character, which PostgreSQL text cannot hold', async () => {
      const target = await receiver((_request, response) => response.end('a\u0000b'));
      const response = await sender().send({ url: target.url, headers: {}, body: BODY });
      expect(response.body).toBe('a\uFFFDb');
    });
  });

  it('keeps at most 50 response headers, each value cut to 1,024 characters', async () => {
    const target = await receiver((_request, response) => {
      response.setHeader('x-long', 'v'.repeat(2000));
      for (let i = 0; i < 80; i += 1) response.setHeader(`x-extra-${i}`, String(i));
      response.end();
    });
    const response = await sender().send({ url: target.url, headers: {}, body: BODY });
    expect(Object.keys(response.headers)).toHaveLength(50);
    expect(response.headers['x-long']).toBe('v'.repeat(1024));
  });

  it('fails on response headers larger than an HTTP client accepts (16 KiB)', async () => {
    const target = await receiver((_request, response) => {
      for (let i = 0; i < 20; i += 1) response.setHeader(`x-extra-${i}`, 'v'.repeat(1000));
      response.end();
    });
    await expect(sendFailure(sender().send({ url: target.url, headers: {}, body: BODY }))).resolves.toEqual({
      kind: 'connection',
      message: 'Connection failed (UND_ERR_HEADERS_OVERFLOW)',
    });
  });

  describe('fails without an HTTP response', () => {
    it('on a timeout while waiting for the response', async () => {
      const target = await receiver(() => undefined);
      await expect(sendFailure(sender({ timeoutMs: 200 }).send({ url: target.url, headers: {}, body: BODY }))).resolves.toEqual({
        kind: 'timeout',
        message: 'No complete response within 200 ms',
      });
      expect(target.requests).toHaveLength(1);
    });

    it('on a timeout while the body is still arriving', async () => {
      const target = await receiver((_request, response) => {
        response.writeHead(200);
        response.write('partial');
      });
      await expect(sendFailure(sender({ timeoutMs: 200 }).send({ url: target.url, headers: {}, body: BODY }))).resolves.toMatchObject({
        kind: 'timeout',
      });
    });

    it('when the connection is refused', async () => {
      const port = await freePort();
      await expect(sendFailure(sender().send({ url: `http://127.0.0.1:${port}/`, headers: {}, body: BODY }))).resolves.toEqual({
        kind: 'connection',
        message: 'Connection failed (ECONNREFUSED)',
      });
    });

    it('when the connection is reset before any response', async () => {
      const target = await receiver((request) => request.socket.destroy());
      await expect(sendFailure(sender().send({ url: target.url, headers: {}, body: BODY }))).resolves.toMatchObject({
        kind: 'connection',
      });
    });

    it('when the host name does not resolve', async () => {
      const lookup = fakeDns({});
      await expect(
        sendFailure(sender({ lookup }).send({ url: 'http://gone.test/', headers: {}, body: BODY })),
      ).resolves.toEqual({ kind: 'connection', message: 'Connection failed (ENOTFOUND)' });
    });
  });

  it('opens at most connectionsPerOrigin connections to one endpoint', async () => {
    let release!: () => void;
    const bothArrivedOrNot = new Promise<void>((resolve) => (release = resolve));
    let open = 0;
    let mostOpen = 0;
    const target = await receiver((_request, response) => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      if (open === 2) release();
      // With one connection the second request cannot arrive before the first is answered.
      void Promise.race([bothArrivedOrNot, new Promise((resolve) => setTimeout(resolve, 100))]).then(() => {
        open -= 1;
        response.end('ok');
      });
    });
    const limited = sender({ connectionsPerOrigin: 1 });
    const request = { url: target.url, headers: {}, body: BODY };
    const responses = await Promise.all([limited.send(request), limited.send(request)]);
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200]);
    expect(mostOpen).toBe(1);
    expect(target.connections).toBe(1);
  });
});

describe('URL safety at delivery', () => {
  describe('in production', () => {
    it('refuses a host name that resolves to 127.0.0.1 before connecting', async () => {
      const target = await receiver();
      await expect(
        sendFailure(sender({ policy: production }).send({ url: `https://localhost:${target.port}/`, headers: {}, body: BODY })),
      ).resolves.toEqual({ kind: 'refused-address', message: 'The endpoint resolves to an address that is not allowed' });
      expect(target.connections).toBe(0);
    });

    it('refuses a name that resolved to a public address at creation and to 127.0.0.1 at delivery (DNS rebinding)', async () => {
      const target = await receiver();
      const lookup = rebindingDns('rebind.test', '93.184.216.34', '127.0.0.1');
      const url = await checkEndpointUrl(`https://rebind.test:${target.port}/`, production, { lookup });
      await expect(sendFailure(sender({ policy: production, lookup }).send({ url, headers: {}, body: BODY }))).resolves.toEqual({
        kind: 'refused-address',
        message: 'The endpoint resolves to an address that is not allowed',
      });
      expect(target.connections).toBe(0);
    });

    it('refuses a name when any one of its addresses is refused', async () => {
      const target = await receiver();
      const lookup = fakeDns({ 'mixed.test': ['93.184.216.34', '127.0.0.1'] });
      await expect(
        sendFailure(sender({ policy: production, lookup }).send({ url: `https://mixed.test:${target.port}/`, headers: {}, body: BODY })),
      ).resolves.toMatchObject({ kind: 'refused-address' });
      expect(target.connections).toBe(0);
    });

    it.each([
      'https://127.0.0.1:PORT/',
      'https://0x7f000001:PORT/',
      'https://2130706433:PORT/',
      'https://0177.0.0.1:PORT/',
      'https://[::ffff:127.0.0.1]:PORT/',
      'http://127.0.0.1:PORT/',
      'http://0x7f000001:PORT/',
      'http://2130706433:PORT/',
      'http://0177.0.0.1:PORT/',
    ])('refuses %s, a spelling of the loopback receiver, before connecting', async (template) => {
      const target = await receiver();
      const url = template.replace('PORT', String(target.port));
      await expect(sendFailure(sender({ policy: production }).send({ url, headers: {}, body: BODY }))).resolves.toMatchObject({
        kind: 'refused-address',
      });
      expect(target.connections).toBe(0);
    });

    it.each([
      'http://[::ffff:169.254.169.254]/',
      'https://[::ffff:169.254.169.254]/',
      'https://[fd00::1]/',
      'https://[2002:7f00:1::]/',
      'https://[64:ff9b::a9fe:a9fe]/',
      'https://100.100.100.200/',
      'https://169.254.169.254/',
      'https://[::1]/',
    ])('refuses %s without any network traffic', async (url) => {
      const lookup = fakeDns({});
      await expect(sendFailure(sender({ policy: production, lookup }).send({ url, headers: {}, body: BODY }))).resolves.toMatchObject({
        kind: 'refused-address',
      });
      expect(lookup.asked).toEqual([]);
    });
  });

  describe('in development', () => {
    it('sends plain http to 127.0.0.1', async () => {
      const target = await receiver();
      await expect(sender().send({ url: `${target.url}/`, headers: {}, body: BODY })).resolves.toMatchObject({ statusCode: 200 });
      expect(target.requests).toHaveLength(1);
    });

    it.each(['http://93.184.216.34/', 'http://169.254.169.254/', 'http://[::ffff:169.254.169.254]/', 'https://169.254.169.254/'])(
      'refuses %s before connecting',
      async (url) => {
        await expect(sendFailure(sender().send({ url, headers: {}, body: BODY }))).resolves.toEqual({
          kind: 'refused-address',
          message: 'The endpoint address is not allowed',
        });
      },
    );

    it('refuses a name that resolves to the metadata address', async () => {
      const target = await receiver();
      const lookup = fakeDns({ 'metadata.test': ['169.254.169.254'], 'receiver.test': ['127.0.0.1', '169.254.169.254'] });
      await expect(
        sendFailure(sender({ lookup }).send({ url: 'http://metadata.test/', headers: {}, body: BODY })),
      ).resolves.toMatchObject({ kind: 'refused-address' });
      await expect(
        sendFailure(sender({ lookup }).send({ url: `http://receiver.test:${target.port}/`, headers: {}, body: BODY })),
      ).resolves.toMatchObject({ kind: 'refused-address' });
      expect(target.connections).toBe(0);
    });

    it('refuses plain http to a name that resolves to a public address', async () => {
      const lookup = fakeDns({ 'public.test': ['93.184.216.34'] });
      await expect(
        sendFailure(sender({ lookup }).send({ url: 'http://public.test/', headers: {}, body: BODY })),
      ).resolves.toMatchObject({ kind: 'refused-address' });
    });
  });

  it('refuses a URL that is not http(s) or carries credentials', async () => {
    await expect(sendFailure(sender().send({ url: 'ftp://127.0.0.1/', headers: {}, body: BODY }))).resolves.toMatchObject({
      kind: 'refused-address',
    });
    await expect(sendFailure(sender().send({ url: 'not a url', headers: {}, body: BODY }))).resolves.toMatchObject({
      kind: 'refused-address',
    });
    const target = await receiver();
    await expect(
      sendFailure(sender().send({ url: `http://user:pass@127.0.0.1:${target.port}/`, headers: {}, body: BODY })),
    ).resolves.toMatchObject({ kind: 'refused-address' });
    expect(target.connections).toBe(0);
  });
});
