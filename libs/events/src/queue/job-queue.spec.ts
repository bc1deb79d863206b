import { platformModule } from '@mrp/platform';
import { createTestOrm, type TestOrm } from '@mrp/platform/testing';
import { authzStandIn } from '../../test/organizations-stand-in';
import { eventsModule } from '../events-module';
import { QUEUES, createJobQueue, ensureQueues } from './job-queue';

describe('job queue', () => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await createTestOrm([platformModule, authzStandIn, eventsModule]);
  });
  afterAll(() => db.close());

  it('runs on the schema our migration installed and creates its queues', async () => {
    const boss = createJobQueue({ databaseUrl: db.database.url, max: 2 });
    boss.on('error', () => undefined);
    await boss.start();
    try {
      await ensureQueues(boss);
      await ensureQueues(boss); // idempotent
      const queue = await boss.getQueue(QUEUES.webhookDeliveries);
      expect(queue?.name).toBe('webhook-deliveries');
      const id = await boss.send(QUEUES.webhookDeliveries, { probe: true });
      const [job] = await boss.fetch<{ probe: boolean }>(QUEUES.webhookDeliveries);
      expect(job.id).toBe(id);
      expect(job.data).toEqual({ probe: true });
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
  });
});
