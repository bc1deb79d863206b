import { connect } from 'node:net';
import { startTestApi, type TestApi } from './support/test-api';
import { createOrganizationWithKey, publicApi, type OrganizationWithKey } from './support/public-api-fixtures';
import { capturedLogger } from '@mrp/platform/testing';

/**
 * Sends bytes as they are (no client library would) and reads everything until the server closes
 * the connection; like an HTTP client, it does not half-close its side first.
 */
function sendRaw(api: TestApi, bytes: string | Buffer): Promise<{ status: number; headers: string; body: string; raw: string }> {
  const { hostname, port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    socket.setTimeout(10_000, () => socket.destroy());
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body, raw: text });
    });
  });
}

/** A request Node's own HTTP parser refuses still gets the contract's error shape, not a bare status line. */
describe('malformed HTTP', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api);
  });
  afterAll(() => api.close());

  it.each([
    ['a NUL in a header value', 'GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\u0000b\r\n\r\n'],
    ['a NUL in the Authorization header', 'GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer mrk_\u0000\r\n\r\n'],
    ['a bare carriage return inside a header value', 'GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Organization-Id: a\rb\r\n\r\n'],
    ['a broken request line', 'GET\u0000/ HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a broken chunk', 'POST /rpc/me.get HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
    ['headers beyond 256 KiB', `GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(300 * 1024)}\r\n\r\n`],
  ])('%s is a JSON 400 bad_request', async (_name, request) => {
    const answer = await sendRaw(api, Buffer.from(request, 'latin1'));
    expect(answer.status).toBe(400);
    expect(answer.headers).toMatch(/\r\ncontent-type: application\/json/i);
    const body = JSON.parse(answer.body) as { error: Record<string, unknown> };
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'requestId']);
    expect(body.error['code']).toBe('bad_request');
    expect(answer.headers).toContain(`\r\nX-Request-Id: ${String(body.error['requestId'])}`);
  });

  it('a malformed request after a finished one on the same kept-alive connection still gets the JSON 400', async () => {
    const answer = await sendRaw(api, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000\r\n\r\n');
    expect(answer.status).toBe(200);
    const [, second = ''] = answer.raw.split(/(?=HTTP\/1\.1 )/);
    expect(second).toMatch(/^HTTP\/1\.1 400 /);
    expect(second).toContain('"code":"bad_request"');
  });

  it.each([
    ['a 1 MiB URL', () => publicApi(api, org.key.token).get(`/models/${org.modelKey}/records?filter=${'x'.repeat(1024 * 1024)}`)],
    ['a 1 MiB header', () => api.request('/rpc/me.get', { method: 'POST', json: {}, headers: { Authorization: `Bearer ${'x'.repeat(1024 * 1024)}` } })],
  ])('%s is answered, not cut off while the client is still sending it', async (_name, send) => {
    const response = await send();
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('bad_request');
  });

  it('a URL long enough for the largest filter a route accepts reaches the route', async () => {
    // The values may hold 4000 characters in all; JSON's whitespace fills the text up to its 64 KiB.
    const filter = { or: Array.from({ length: 99 }, () => ({ field: 'notes', op: 'contains', value: '{"%":"\\u00e9"}'.repeat(2) })) };
    const text = JSON.stringify(filter).padEnd(65_536, ' ');
    const query = `filter=${encodeURIComponent(text)}`;
    expect(text.length).toBeLessThanOrEqual(65_536);
    expect(query.length).toBeGreaterThan(100_000);
    const response = await publicApi(api, org.key.token).get(`/models/${org.modelKey}/records?${query}`);
    expect(response.status).toBe(200);
  });
});

/** Sends the whole request, then half-closes (as `nc -N` does) and reads the answer until the server closes. */
function sendThenHalfClose(api: TestApi, request: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true }, () => socket.end(request));
    socket.setTimeout(10_000, () => socket.destroy());
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body });
    });
  });
}

describe('a client that half-closes after sending its request', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  const { logger, lines } = capturedLogger();
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' }, { logger });
    org = await createOrganizationWithKey(api);
  });
  afterAll(() => api.close());

  const post = (path: string, headers: string, body: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}\r\n${body}`;

  /** Error lines, and request lines of a 5xx: what an operator would be paged for. */
  const failuresLoggedSince = (before: number) =>
    lines.slice(before).filter((line) => Number(line['level']) >= 50 || Number(line['status']) >= 500 || JSON.stringify(line).includes('stack'));

  it.each([
    ['/dev/session', 200, () => post('/dev/session', '', JSON.stringify({ email: 'half.close@example.com' }))],
    ['/rpc', 200, () => post('/rpc/me.get', `Authorization: Bearer ${org.owner.session}\r\n`, '{}')],
    ['/api/v1', 201, () => post(`/api/v1/models/${org.modelKey}/records`, `Authorization: Bearer ${org.key.token}\r\n`, JSON.stringify({ data: { title: 'half-closed' } }))],
  ])('%s: is answered as if it had stayed open, and nothing is logged as a failure', async (_door, status, request) => {
    const before = lines.length;
    const answer = await sendThenHalfClose(api, request());
    expect(answer.status).toBe(status);
    expect(failuresLoggedSince(before)).toEqual([]);
  });

  it('before its body is complete: a 400 bad_request, and nothing logged as a failure', async () => {
    const before = lines.length;
    const whole = post(`/api/v1/models/${org.modelKey}/records`, `Authorization: Bearer ${org.key.token}\r\n`, JSON.stringify({ data: { title: 'cut short' } }));
    const answer = await sendThenHalfClose(api, whole.slice(0, -5));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'bad_request' } });
    // The request's own log line comes once its answer has gone out.
    while (!lines.slice(before).some((line) => line['msg'] === 'request')) await new Promise((resolve) => setImmediate(resolve));
    expect(failuresLoggedSince(before)).toEqual([]);
  });
});
