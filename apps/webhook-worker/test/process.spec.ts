import { Client } from 'pg';
import { createTestDatabase, startAppProcess, type TestDatabase } from '@mrp/platform/testing';

describe('the webhook-worker process', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('listens for due deliveries, and exits 0 on SIGTERM', async () => {
    const worker = startAppProcess('webhook-worker', { ...database.env });
    await worker.waitForLine(/webhook-worker started/);
    const client = new Client({ connectionString: database.directUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ listeners: number }>(
        `SELECT count(*)::int AS listeners FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN jobs_due'`,
      );
      expect(rows[0].listeners).toBe(1);
    } finally {
      await client.end();
    }
    worker.child.kill('SIGTERM');
    await worker.waitForLine(/"msg":"webhook-worker stopped"/);
    expect((await worker.exited).code).toBe(0);
  });

  it('loads a secret resolver written in TypeScript, although it runs as a JavaScript bundle', async () => {
    const worker = startAppProcess('webhook-worker', {
      ...database.env,
      WEBHOOK_SECRET_RESOLVER: './apps/webhook-worker/test/support/typescript-secret-resolver.ts',
    });
    await worker.waitForLine(/webhook-worker started/);
    worker.child.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);
  });

  it('fails fast with one line when DATABASE_URL is missing', async () => {
    const worker = startAppProcess('webhook-worker', {});
    const { code, stderr } = await worker.exited;
    expect(code).toBe(1);
    expect(stderr).toBe('webhook-worker: configuration error: DATABASE_URL is not set (npm start provides an embedded PostgreSQL)\n');
  });
});
