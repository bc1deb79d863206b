import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@mrp/platform/testing';
import type { DeployedApp } from '@mrp/platform/deploy';
import { apiWithEndpoint, startReceiver, until } from './support/delivery-test-kit';

const JWT_SECRET = 'durability-test-secret-long-enough-for-hs256';

describe('webhook deliveries survive killed processes', () => {
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
      WEBHOOK_TIMEOUT_SECONDS: '1',
      // A dead worker's jobs are found expired within a second of their expiry.
      JOB_MAINTENANCE_INTERVAL_SECONDS: '1',
    };
  });
  afterEach(() => {
    for (const app of processes.splice(0)) if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill('SIGKILL');
  });
  afterAll(() => database.drop());

  it('delivers what an api process queued before it was killed right after its 2xx', async () => {
    const receiver = await startReceiver();
    try {
      const { api, createRecord } = await apiWithEndpoint(start, receiver.url, JWT_SECRET);
      const record = await createRecord('Paid');
      api.child.kill('SIGKILL');
      await api.exited;
      // The worker starts only now: what it delivers was durably queued by the transaction that answered 2xx.
      const worker = start('webhook-worker');
      await worker.waitForLine(/webhook-worker started/);
      await until(() => receiver.received.length >= 1, 15_000, 'the delivery');
      expect(JSON.parse(receiver.received[0].body)).toMatchObject({ type: 'data-models.record-created', payload: { recordId: record.id } });
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('delivers again what a worker was sending when it was killed', async () => {
    const receiver = await startReceiver();
    try {
      const { createRecord } = await apiWithEndpoint(start, receiver.url, JWT_SECRET);
      receiver.state.hang = true;
      const first = start('webhook-worker');
      await first.waitForLine(/webhook-worker started/);
      await createRecord('In flight');
      await until(() => receiver.received.length >= 1, 15_000, 'the first attempt');
      first.child.kill('SIGKILL');
      await first.exited;
      receiver.state.hang = false;
      // The dead worker renews its claim no more: it is free within one lease (10 s) of its last heartbeat.
      const held = new Client({ connectionString: database.directUrl });
      await held.connect();
      try {
        // Only this test's delivery: the previous test's worker may have died before recording its success.
        const { rows } = await held.query<{ free_in: number }>(
          "SELECT extract(epoch FROM locked_until - now())::float8 AS free_in FROM webhook_deliveries WHERE id = $1 AND status = 'pending' AND locked_until IS NOT NULL",
          [receiver.received[0].headers['webhook-delivery-id']],
        );
        expect(rows).toHaveLength(1);
        expect(rows[0].free_in).toBeLessThanOrEqual(10);
      } finally {
        await held.end();
      }

      const second = start('webhook-worker');
      await second.waitForLine(/webhook-worker started/);
      // Its job expires and its claim has run out: the new worker takes the delivery over.
      await until(() => receiver.received.length >= 2, 30_000, 'the delivery after the worker died');
      const [lost, redelivered] = receiver.received;
      expect(redelivered.headers['idempotency-key']).toBe(lost.headers['idempotency-key']);
      expect(redelivered.headers['webhook-delivery-id']).toBe(lost.headers['webhook-delivery-id']);
      // The attempt the dead worker never recorded still counts: the number goes on rising.
      expect([lost.headers['webhook-attempt'], redelivered.headers['webhook-attempt']]).toEqual(['1', '2']);

      const client = new Client({ connectionString: database.directUrl });
      await client.connect();
      try {
        const deadline = Date.now() + 10_000;
        let status = '';
        while (status !== 'succeeded' && Date.now() < deadline) {
          const { rows } = await client.query<{ status: string }>('SELECT status FROM webhook_deliveries WHERE id = $1', [lost.headers['webhook-delivery-id']]);
          status = rows[0]?.status ?? '';
          if (status !== 'succeeded') await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(status).toBe('succeeded');
        // Both sends are in the log: the first as of unknown outcome, the second as it went.
        const { rows: attempts } = await client.query<{ attempt: number; status_code: number | null; error: string | null }>(
          'SELECT attempt, status_code, error FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
          [lost.headers['webhook-delivery-id']],
        );
        expect(attempts.map(({ attempt, status_code }) => ({ attempt, status_code }))).toEqual([
          { attempt: 1, status_code: null },
          { attempt: 2, status_code: 204 },
        ]);
        expect(attempts[0].error).toMatch(/^Outcome unknown/);
      } finally {
        await client.end();
      }
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
