import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@mrp/platform/testing';
import type { DeployedApp } from '@mrp/platform/deploy';
import { apiWithEndpoint, startReceiver, until } from './support/delivery-test-kit';

const JWT_SECRET = 'graceful-stop-secret-long-enough-for-hs256';

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
    const receiver = await startReceiver({ hang: true });
    try {
      const { createRecord } = await apiWithEndpoint(start, receiver.url, JWT_SECRET);
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
    const receiver = await startReceiver({ hang: true });
    try {
      const { createRecord } = await apiWithEndpoint(start, receiver.url, JWT_SECRET);
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
