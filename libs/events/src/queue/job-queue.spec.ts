import { platformModule } from '@mrp/platform';
import { createTestOrm, type TestOrm } from '@mrp/platform/testing';
import { eventsModule } from '../events-module';
import { createJobQueue } from './job-queue';

describe('job queue', () => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await createTestOrm([platformModule, eventsModule]);
  });
  afterAll(() => db.close());

  it('runs on the schema our migration installed', async () => {
    const boss = createJobQueue({ databaseUrl: db.database.url, max: 2 });
    boss.on('error', () => undefined);
    await boss.start();
    try {
      await boss.createQueue('probe', { name: 'probe', policy: 'standard' });
      expect((await boss.getQueue('probe'))?.name).toBe('probe');
      const id = await boss.send('probe', { probe: true });
      const [job] = await boss.fetch<{ probe: boolean }>('probe');
      expect(job.id).toBe(id);
      expect(job.data).toEqual({ probe: true });
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
  });
});
