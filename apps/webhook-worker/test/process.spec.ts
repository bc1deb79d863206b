import PgBoss from 'pg-boss';
import { createTestDatabase, startAppProcess, type TestDatabase } from '@mrp/platform/testing';

describe('the webhook-worker process', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('connects pg-boss, creates its queues, and exits 0 on SIGTERM', async () => {
    const worker = startAppProcess('apps/webhook-worker/src/main.ts', { DATABASE_URL: database.url });
    await worker.waitForLine(/webhook-worker started/);
    const boss = new PgBoss({ connectionString: database.url, schema: 'pgboss', migrate: false });
    await boss.start();
    try {
      expect((await boss.getQueue('webhook-deliveries'))?.name).toBe('webhook-deliveries');
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
    worker.child.kill('SIGTERM');
    await worker.waitForLine(/"msg":"webhook-worker stopped"/);
    expect((await worker.exited).code).toBe(0);
  });

  it('fails fast with one line when DATABASE_URL is missing', async () => {
    const worker = startAppProcess('apps/webhook-worker/src/main.ts', {});
    const { code, stderr } = await worker.exited;
    expect(code).toBe(1);
    expect(stderr).toBe('webhook-worker: configuration error: DATABASE_URL is not set (npm start provides an embedded PostgreSQL)\n');
  });
});
