import { createJobQueue, createOrm, newId, platformModule, type Orm } from '@mrp/platform';
import { createEmptyTestDatabase, silentLogger, type TestDatabase } from '@mrp/platform/testing';
import { eventsModule } from '../events-module';

/** The last migration before deliveries became jobs. */
const BEFORE_JOBS = 'Migration20261206001200_due_deliveries_numbered';

describe('the migration that makes webhook deliveries jobs', () => {
  let database: TestDatabase;
  let orm: Orm;
  beforeAll(async () => {
    database = await createEmptyTestDatabase();
    orm = await createOrm({ databaseUrl: database.directUrl, modules: [platformModule, eventsModule], poolSize: 2 });
  });
  afterAll(async () => {
    await orm.close(true);
    await database.drop();
  });
  const sql = <T>(text: string, params: unknown[] = []) => orm.em.fork().execute<T[]>(text, params);

  it("gives each organization's endpoints one queue, in turns, and each pending delivery its job, due when its row says", async () => {
    await orm.getMigrator().up({ to: BEFORE_JOBS });
    const [first, second] = [newId(), newId()];
    const endpoint = async (organizationId: string) => {
      const id = newId();
      await sql(`INSERT INTO webhook_endpoints (id, organization_id, url, subscriptions, secret_hash, created_by) VALUES (?, ?, 'https://example.com/hook', '{*}', 'hash', 'test')`, [
        id,
        organizationId,
      ]);
      return id;
    };
    const delivery = async (endpointId: string, organizationId: string, status: string, dueIn: string) => {
      const id = newId();
      await sql(
        `INSERT INTO webhook_deliveries (id, endpoint_id, organization_id, event_id, event_type, idempotency_key, status, next_attempt_at, completed_at)
         VALUES (?, ?, ?, ?, 'data-models.record-created', ?, ?, now() + ?::interval, CASE WHEN ? = 'pending' THEN NULL ELSE now() END)`,
        [id, endpointId, organizationId, newId(), `idem-${id}`, status, dueIn, status],
      );
      return id;
    };
    const [firstA, firstB, secondA] = [await endpoint(first), await endpoint(first), await endpoint(second)];
    const due = await delivery(firstA, first, 'pending', '-1 minute');
    const later = await delivery(firstB, first, 'pending', '1 hour');
    await delivery(secondA, second, 'succeeded', '0 seconds');
    const dueElsewhere = await delivery(secondA, second, 'pending', '0 seconds');

    await orm.getMigrator().up();
    const queues = new Map(
      (await sql<{ id: string; delivery_queue: number }>('SELECT id, delivery_queue FROM webhook_endpoints')).map((row) => [row.id, row.delivery_queue]),
    );
    expect(queues.get(firstA)).toBe(queues.get(firstB));
    expect(queues.get(secondA)).not.toBe(queues.get(firstA));
    // A new organization takes the next turn; a new endpoint of a known one, its organization's queue.
    const third = await endpoint(newId());
    expect(new Set([queues.get(firstA), queues.get(secondA), (await sql<{ q: number }>('SELECT delivery_queue AS q FROM webhook_endpoints WHERE id = ?', [third]))[0].q]).size).toBe(3);
    const [{ q: again }] = await sql<{ q: number }>('SELECT delivery_queue AS q FROM webhook_endpoints WHERE id = ?', [await endpoint(first)]);
    expect(again).toBe(queues.get(firstA));

    const jobs = createJobQueue({ orm, listenUrl: database.directUrl, logger: silentLogger });
    try {
      const fetched = async (endpointId: string) =>
        (await jobs.fetch<{ deliveryId: string }>(`webhook.deliver.${queues.get(endpointId)}`, 10)).map((job) => job.data.deliveryId);
      expect(await fetched(firstA)).toEqual([due]);
      expect(await fetched(secondA)).toEqual([dueElsewhere]);
      // The one due in an hour has its job too, held back until then.
      const [{ waiting }] = await sql<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pgboss.job WHERE data->>'deliveryId' = ? AND start_after > now() + interval '50 minutes'`,
        [later],
      );
      expect(waiting).toBe(1);
    } finally {
      await jobs.stop();
    }
  });
});
