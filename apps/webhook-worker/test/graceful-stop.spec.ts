import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { Client } from 'pg';
import { freePort } from '@mrp/platform';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@mrp/platform/testing';
import type { DeployedApp } from '@mrp/platform/deploy';

const JWT_SECRET = 'graceful-stop-secret-long-enough-for-hs256';

/** A loopback receiver that holds every request open until the test answers it. */
async function startHoldingReceiver() {
  const received: Array<{ headers: IncomingHttpHeaders; response: ServerResponse }> = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => received.push({ headers: request.headers, response }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a webhook-worker stopped by SIGTERM while it sends', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  const processes: AppProcess[] = [];
  const start = (name: DeployedApp, extra: Record<string, string> = {}) => {
    const app = startAppProcess(name, { ...env, ...extra });
    processes.push(app);
    return app;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    env = {
      ...database.env,
      // Receivers on loopback are allowed only outright in development.
      NODE_ENV: 'development',
      AUTH_JWT_SECRET: JWT_SECRET,
      WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    };
  });
  afterEach(() => {
    for (const app of processes.splice(0)) if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill('SIGKILL');
  });
  afterAll(() => database.drop());

  /** An api with an organization, a model and an endpoint on `receiverUrl`: creates a record, whose event is delivered there. */
  async function recordCreator(receiverUrl: string): Promise<(title: string) => Promise<unknown>> {
    const port = await freePort();
    const api = start('api', { PORT: String(port) });
    await api.waitForLine(/api listening/);
    const token = await new SignJWT({ email: `owner-${randomUUID()}@example.com`, name: 'Owner' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(randomUUID())
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const rpc = async (name: string, input: unknown, organizationId?: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/rpc/${name}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...(organizationId ? { 'X-Organization-Id': organizationId } : {}) },
        body: JSON.stringify(input),
      });
      const body = (await response.json()) as Record<string, unknown>;
      if (response.status !== 200) throw new Error(`${name}: ${response.status} ${JSON.stringify(body)}`);
      return body;
    };
    const organizationId = (await rpc('organizations.create', { name: `Stopping ${randomUUID()}` })).id as string;
    await rpc('dataModels.create', { key: 'orders', name: 'Orders' }, organizationId);
    await rpc('webhooks.endpoints.create', { url: receiverUrl, subscriptions: ['data-models.record-created'] }, organizationId);
    return (title) => rpc('records.create', { model: 'orders', data: { title } }, organizationId);
  }

  async function attemptsOf(deliveryId: string) {
    const client = new Client({ connectionString: database.directUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ status: string; attempts: Array<{ attempt: number; status_code: number | null }> }>(
        `SELECT d.status, coalesce(json_agg(json_build_object('attempt', a.attempt, 'status_code', a.status_code) ORDER BY a.attempt)
                FILTER (WHERE a.attempt IS NOT NULL), '[]') AS attempts
         FROM webhook_deliveries d LEFT JOIN webhook_delivery_attempts a ON a.delivery_id = d.id WHERE d.id = $1 GROUP BY d.status`,
        [deliveryId],
      );
      return rows[0];
    } finally {
      await client.end();
    }
  }

  it('finishes and records the delivery it is sending, then exits 0', async () => {
    const receiver = await startHoldingReceiver();
    try {
      const createRecord = await recordCreator(receiver.url);
      const worker = start('webhook-worker');
      await worker.waitForLine(/webhook-worker started/);
      await createRecord('Sent while stopping');
      await until(() => receiver.received.length === 1, 15_000, 'the attempt');
      worker.child.kill('SIGTERM');
      await worker.waitForLine(/"msg":"webhook-worker stopping"/);
      // It waits for the receiver's answer.
      await new Promise((wait) => setTimeout(wait, 1_000));
      expect(worker.child.exitCode).toBeNull();
      receiver.received[0].response.writeHead(204).end();
      expect((await worker.exited).code).toBe(0);
      expect(await attemptsOf(receiver.received[0].headers['webhook-delivery-id'] as string)).toEqual({
        status: 'succeeded',
        attempts: [{ attempt: 1, status_code: 204 }],
      });
    } finally {
      await receiver.close();
    }
  }, 90_000);

  it('stops waiting for a receiver once SHUTDOWN_TIMEOUT_SECONDS has run out, exits 0, and the delivery is still pending', async () => {
    const receiver = await startHoldingReceiver();
    try {
      const createRecord = await recordCreator(receiver.url);
      const worker = start('webhook-worker', { SHUTDOWN_TIMEOUT_SECONDS: '1' });
      await worker.waitForLine(/webhook-worker started/);
      await createRecord('Cut off');
      await until(() => receiver.received.length === 1, 15_000, 'the attempt');
      const signalled = Date.now();
      worker.child.kill('SIGTERM');
      expect((await worker.exited).code).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(6_500);
      expect(worker.output().stdout).toMatch(/webhook deliveries still being sent when SHUTDOWN_TIMEOUT_SECONDS ran out/);
      // Its claim runs out and another worker sends it again (at least once).
      expect((await attemptsOf(receiver.received[0].headers['webhook-delivery-id'] as string)).status).toBe('pending');
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
