import PgBoss from 'pg-boss';
import { createTestOrm, silentLogger, type TestOrm } from '@mrp/platform/testing';
import { platformModule } from '../platform-module';
import { JOB_QUEUE_SCHEMA, createJobQueue, type Job, type JobQueue } from './job-queue';

describe('job queue', () => {
  let db: TestOrm;
  let jobs: JobQueue;

  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
    // Queues are made by migrations; here, by pg-boss itself on its own connection.
    const boss = new PgBoss({ connectionString: db.database.url, schema: JOB_QUEUE_SCHEMA, migrate: false, supervise: false, schedule: false, max: 1 });
    boss.on('error', () => undefined);
    await boss.start();
    try {
      await boss.createQueue('probe', { name: 'probe', policy: 'standard', retryLimit: 0 });
      await boss.createQueue('woken', { name: 'woken', policy: 'standard', retryLimit: 0 });
      await boss.createQueue('retried', { name: 'retried', policy: 'standard', retryLimit: 1, retryDelay: 0 });
      await boss.createQueue('paced-a', { name: 'paced-a', policy: 'standard', retryLimit: 1, retryDelay: 0 });
      await boss.createQueue('paced-b', { name: 'paced-b', policy: 'standard', retryLimit: 1, retryDelay: 0 });
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
    jobs = createJobQueue({ orm: db.orm, listenUrl: db.database.directUrl, logger: silentLogger });
  });
  afterAll(async () => {
    await jobs.stop();
    await db.close();
  });

  const collect = async (queue: string, options?: { ignoreDelay?: boolean }) => {
    const seen: Job[] = [];
    const count = await jobs.drain(queue, async (job) => void seen.push(job), options);
    expect(count).toBe(seen.length);
    return seen;
  };

  it('queues a job with the transaction that enqueues it, and none when it rolls back', async () => {
    await expect(
      db.orm.em.fork().transactional(async (em) => {
        await jobs.enqueue(em, 'probe', { organizationId: null, n: 1 });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const id = await db.orm.em.fork().transactional((em) => jobs.enqueue(em, 'probe', { organizationId: null, n: 2, nested: { list: ['a', 'b'] } }));
    expect(await collect('probe')).toEqual([{ id, queue: 'probe', data: { organizationId: null, n: 2, nested: { list: ['a', 'b'] } } }]);
    expect(await collect('probe')).toEqual([]);
  });

  it('holds a delayed job back until its time, and many jobs go in one call', async () => {
    await db.orm.em.fork().transactional((em) =>
      jobs.enqueueMany(em, 'probe', [{ data: { n: 1 } }, { data: { n: 2 }, delaySeconds: 3600 }]),
    );
    expect((await collect('probe')).map((job) => job.data)).toEqual([{ n: 1 }]);
    expect((await collect('probe', { ignoreDelay: true })).map((job) => job.data)).toEqual([{ n: 2 }]);
  });

  it('wakes a started worker at commit, though it would not poll again for an hour', async () => {
    const received = new Promise<Job>((resolve) => {
      void jobs.work('woken', { pollIntervalSeconds: 3600 }, async (job) => resolve(job));
    });
    await jobs.start();
    // Its first look found nothing; only the commit's notification can make it look again.
    await new Promise((wait) => setTimeout(wait, 200));
    const id = await db.orm.em.fork().transactional((em) => jobs.enqueue(em, 'woken', { organizationId: 'org-1' }));
    await expect(received).resolves.toEqual({ id, queue: 'woken', data: { organizationId: 'org-1' } });
  });

  it('retries a job whose handler threw, as its queue allows', async () => {
    await db.orm.em.fork().transactional((em) => jobs.enqueue(em, 'retried', { n: 1 }));
    let runs = 0;
    const fail = async () => {
      runs++;
      throw new Error('not yet');
    };
    expect(await jobs.drain('retried', fail)).toBe(1);
    expect(await jobs.drain('retried', fail)).toBe(1);
    expect(await jobs.drain('retried', fail)).toBe(0);
    expect(runs).toBe(2);
  });

  it('queues jobs of several queues with the COMMIT, for a consumer that fetches and settles them itself', async () => {
    await expect(
      db.orm.em.fork().transactional(async (em) => {
        await jobs.enqueueAtCommit(em, [{ queue: 'paced-a', data: { n: 0 } }]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const before = new Date();
    await db.orm.em.fork().transactional((em) =>
      jobs.enqueueAtCommit(em, [
        { queue: 'paced-a', data: { n: 1 } },
        { queue: 'paced-b', data: { n: 2 } },
        { queue: 'paced-a', data: { n: 3 }, startAt: new Date(before.getTime() + 3_600_000) },
      ]),
    );
    const fetched = await jobs.fetch('paced-a', 10);
    expect(fetched.map((job) => job.data)).toEqual([{ n: 1 }]);
    // Fetched and not settled: nobody else gets it.
    expect(await jobs.fetch('paced-a', 10)).toEqual([]);
    await db.orm.em.fork().transactional((em) => jobs.complete('paced-a', [fetched[0].id], em));
    const [failed] = await jobs.fetch('paced-b', 10);
    await jobs.fail('paced-b', [failed.id], 'the receiver was down');
    // Failed with a retry left: it comes back.
    expect((await jobs.fetch('paced-b', 10)).map((job) => job.id)).toEqual([failed.id]);
  });

  it('hands out the highest priority first, then the oldest, whichever way the jobs were queued', async () => {
    await db.orm.em.fork().transactional((em) => jobs.enqueueMany(em, 'probe', [{ data: { n: 1 }, priority: -1 }, { data: { n: 2 } }]));
    await db.orm.em.fork().transactional((em) =>
      jobs.enqueueAtCommit(em, [
        { queue: 'probe', data: { n: 3 }, priority: -1 },
        { queue: 'probe', data: { n: 4 }, priority: 5 },
      ]),
    );
    // One at a time: a batch is the right set, in no particular order.
    const taken: unknown[] = [];
    for (let fetch = 0; fetch < 4; fetch++) {
      const [job] = await jobs.fetch('probe', 1);
      taken.push(job.data.n);
      await jobs.complete('probe', [job.id]);
    }
    expect(taken).toEqual([4, 2, 1, 3]);
  });

  it('tells a consumer of its queues when jobs are announced', async () => {
    const woken: string[] = [];
    const unsubscribe = jobs.onDue(['paced-a', 'paced-b'], (queue) => woken.push(queue));
    try {
      await jobs.start();
      const deadline = Date.now() + 10_000;
      jobs.announce(['paced-b']);
      while (!woken.includes('paced-b') && Date.now() < deadline) await new Promise((wait) => setTimeout(wait, 20));
      expect(woken).toContain('paced-b');
    } finally {
      unsubscribe();
    }
  });
});
