import { request as httpRequest, type ClientRequest } from 'node:http';
import { freePort } from '@mrp/platform';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@mrp/platform/testing';
import { newHuman, sessionToken, TEST_JWT_SECRET } from './support/test-api';
import { startTcpProxy, throughProxy, type TcpProxy } from './support/tcp-proxy';

interface Answer {
  status: number;
  body: unknown;
}

async function get(url: string): Promise<Answer> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

/** Asks `url` until it answers `status`, for `timeoutMs` at most. */
async function untilStatus(url: string, status: number, timeoutMs: number): Promise<Answer> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await get(url).catch(() => undefined);
    if (answer?.status === status || Date.now() > deadline) return answer ?? { status: 0, body: null };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A request whose body is still on its way: it is under way in the api until `finish` sends the rest. */
function slowRequest(url: string, token: string): { finish(): void; answer: Promise<Answer>; connected: Promise<void>; request: ClientRequest } {
  const request = httpRequest(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': '2' },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    request.on('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as unknown }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
  const connected = new Promise<void>((resolve) => request.once('socket', (socket) => socket.once('connect', () => resolve())));
  request.write('{');
  return { finish: () => request.end('}'), answer, connected, request };
}

const SHUTTING_DOWN = { error: { code: 'service_unavailable', message: 'This api process is shutting down: send requests to another', requestId: expect.any(String) } };
const DATABASE_UNREACHABLE = { error: { code: 'service_unavailable', message: 'The database cannot be reached', requestId: expect.any(String) } };

describe('health, readiness and the drain of an api process', () => {
  let database: TestDatabase;
  const started: AppProcess[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(() => {
    for (const app of started.splice(0)) if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill('SIGKILL');
  });
  afterAll(() => database.drop());

  async function startApi(env: Record<string, string>): Promise<{ app: AppProcess; url: string }> {
    const port = await freePort();
    const app = startAppProcess('api', { ...database.env, AUTH_JWT_SECRET: TEST_JWT_SECRET, PORT: String(port), LOG_LEVEL: 'info', ...env });
    started.push(app);
    await app.waitForLine(/api listening/, 60_000);
    return { app, url: `http://127.0.0.1:${port}` };
  }

  describe('while the database cannot be reached', () => {
    let proxy: TcpProxy;
    // Between the api's pool and what it connects to (PgBouncer when the run has one): the readiness check goes through the pool.
    beforeAll(async () => {
      const { hostname, port } = new URL(database.url);
      proxy = await startTcpProxy({ host: hostname, port: Number(port || 5432) });
    });
    afterAll(() => proxy.cut());

    it('is live but not ready (503 in the error shape), /health says unreachable as before, and it is ready again once the database is back', async () => {
      const { app, url } = await startApi({ DATABASE_URL: throughProxy(database.url, proxy) });
      expect(await get(`${url}/health/ready`)).toEqual({ status: 200, body: { status: 'ok', database: 'ok' } });

      await proxy.cut();
      expect(await get(`${url}/health/ready`)).toEqual({ status: 503, body: DATABASE_UNREACHABLE });
      expect(await get(`${url}/health/live`)).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await get(`${url}/health`)).toEqual({ status: 503, body: { status: 'unavailable', database: 'unreachable' } });

      await proxy.restore();
      expect(await untilStatus(`${url}/health/ready`, 200, 15_000)).toEqual({ status: 200, body: { status: 'ok', database: 'ok' } });
      app.child.kill('SIGTERM');
      expect((await app.exited).code).toBe(0);
    }, 90_000);
  });

  it('serves /health, /health/live and /health/ready while the database answers', async () => {
    const { app, url } = await startApi({});
    expect(await get(`${url}/health`)).toEqual({ status: 200, body: { status: 'ok', database: 'ok' } });
    expect(await get(`${url}/health/live`)).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await get(`${url}/health/ready`)).toEqual({ status: 200, body: { status: 'ok', database: 'ok' } });
    app.child.kill('SIGTERM');
    expect((await app.exited).code).toBe(0);
  }, 90_000);

  it('on SIGTERM is not ready at once, serves old and new requests through the drain, finishes one under way after it, and exits 0', async () => {
    const { app, url } = await startApi({ SHUTDOWN_DRAIN_SECONDS: '2' });
    const slow = slowRequest(`${url}/rpc/me.get`, await sessionToken(newHuman('drain')));
    // The api has the request (nothing is logged before its answer; it waits for the body).
    await slow.connected;
    await new Promise((resolve) => setTimeout(resolve, 200));

    const signalled = Date.now();
    app.child.kill('SIGTERM');
    await app.waitForLine(/api draining/);
    expect(await get(`${url}/health/ready`)).toEqual({ status: 503, body: SHUTTING_DOWN });
    // Still live, and a new request is still served: the load balancer has not taken it out yet.
    expect(await get(`${url}/health/live`)).toEqual({ status: 200, body: { status: 'ok' } });
    const during = await fetch(`${url}/health`);
    expect(during.status).toBe(200);
    expect(during.headers.get('connection')).toBe('close');

    // After the drain no connection is accepted, but the request under way is answered.
    await app.waitForLine(/api closed to new connections/);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(2_000);
    await expect(fetch(`${url}/health/live`)).rejects.toThrow();
    slow.finish();
    const answer = await slow.answer;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ user: { email: expect.stringMatching(/^drain-/) } });

    const { code } = await app.exited;
    expect(code).toBe(0);
    expect(app.output().stdout).toMatch(/"msg":"api stopped"/);
  }, 90_000);

  it('cuts a request still under way when SHUTDOWN_TIMEOUT_SECONDS runs out, and still exits 0', async () => {
    const { app, url } = await startApi({ SHUTDOWN_DRAIN_SECONDS: '0', SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const slow = slowRequest(`${url}/rpc/me.get`, await sessionToken(newHuman('stuck')));
    await slow.connected;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalled = Date.now();
    app.child.kill('SIGTERM');
    await expect(slow.answer).rejects.toThrow();
    const { code } = await app.exited;
    expect(code).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(6_000);
    expect(app.output().stdout).toMatch(/requests still under way when SHUTDOWN_TIMEOUT_SECONDS ran out/);
  }, 90_000);
});
