import { sqlTextArray } from '@mrp/platform';
import { createWebhookTestBed, type WebhookTestBed } from '@mrp/events/testing';
import { buildDeliveryListQuery, type DeliveryListFilter } from './delivery-list-query';
import type { DeliveryCursor } from './delivery-cursor';

const PAGE = 26;
const DAY = 24 * 3600 * 1000;

/**
 * The delivery log must read a page by index whatever the log's size. 5,000 deliveries shaped like
 * a deployment's: a platform endpoint subscribed to `*` receives every event, each organization's
 * endpoints a share of their organization's. Statistics gathered; the plans PostgreSQL runs.
 */
describe('delivery list plans', () => {
  let bed: WebhookTestBed;
  let endpoints: string[];
  let middle: DeliveryCursor;

  beforeAll(async () => {
    bed = await createWebhookTestBed([]);
    const organization = await bed.organization();
    const other = await bed.organization();
    endpoints = [await bed.endpoint(organization), await bed.endpoint(organization), await bed.endpoint(organization)];
    const organizationEndpoints = [...endpoints, await bed.endpoint(other), await bed.endpoint(other)];
    const platform = await bed.endpoint(null);
    await bed.sql(
      `INSERT INTO webhook_deliveries (id, endpoint_id, organization_id, event_id, event_type, idempotency_key, status,
          created_at, updated_at, completed_at)
       SELECT gen_random_uuid(), e.id, e.organization_id, gen_random_uuid(),
              CASE WHEN i % 3 = 0 THEN 'organization.updated' ELSE 'data-models.record-created' END, 'idem-' || i,
              CASE i % 7 WHEN 0 THEN 'failed' WHEN 1 THEN 'pending' ELSE 'succeeded' END,
              now() - make_interval(secs => (5000 - i) * 600), now(), CASE i % 7 WHEN 1 THEN NULL ELSE now() END
         FROM generate_series(1, 5000) AS i
         JOIN webhook_endpoints e ON e.id = CASE WHEN i % 10 = 0 THEN (?::uuid[])[1 + (i / 10) % 5] ELSE ?::uuid END`,
      [sqlTextArray(organizationEndpoints), platform],
    );
    await bed.sql('VACUUM ANALYZE webhook_deliveries');
    await bed.sql('ANALYZE webhook_endpoints');
    const [row] = await bed.sql<{ created_at_key: string; id: string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_key, id
         FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created_at DESC, id DESC OFFSET 50 LIMIT 1`,
      [endpoints[0]],
    );
    middle = { createdAt: row.created_at_key, id: row.id };
  });
  afterAll(() => bed.close());

  const plan = async (endpointIds: string[], filter: DeliveryListFilter, after: DeliveryCursor | null) => {
    const query = buildDeliveryListQuery(endpointIds, filter, after, PAGE);
    const rows = await bed.sql<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${query.text}`, query.params);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  };

  const endpointIndexReads = (text: string) => text.match(/Index (Only )?Scan( Backward)? using webhook_deliveries_endpoint/g) ?? [];
  const rowsRead = (text: string) =>
    [...text.matchAll(/Scan using webhook_deliveries_endpoint on webhook_deliveries d(?:_\d+)? \(actual rows=(\d+)/g)].map((match) => Number(match[1]));

  const window = () => ({ since: new Date(Date.now() - 20 * DAY).toISOString(), until: new Date(Date.now() - 5 * DAY).toISOString() });

  it.each<[string, number, () => DeliveryListFilter, boolean]>([
    ['one endpoint, first page', 1, () => ({}), false],
    ['one endpoint, deep page', 1, () => ({}), true],
    ['one endpoint, a time window', 1, window, false],
    ["an organization's three endpoints, first page", 3, () => ({}), false],
    ["an organization's three endpoints, deep page", 3, () => ({}), true],
  ])('%s: a page of index entries per endpoint from webhook_deliveries_endpoint, merged', async (_name, count, filter, deep) => {
    const text = await plan(endpoints.slice(0, count), filter(), deep ? middle : null);
    expect(endpointIndexReads(text)).toHaveLength(count);
    expect(text).not.toMatch(/Seq Scan on webhook_deliveries/);
    expect(text).not.toMatch(/webhook_deliveries_created/);
    if (count > 1) expect(text).toMatch(/Merge Append/);
    const read = rowsRead(text);
    expect(read).toHaveLength(count);
    for (const rows of read) expect(rows).toBeLessThanOrEqual(PAGE);
    if (deep) expect(text).toMatch(/Index Cond: \(\(endpoint_id = '[0-9a-f-]+'::uuid\) AND .*ROW\(created_at, id\) < ROW\(/);
  });

  // A window and a cursor together may leave so few days that reading them by time is as cheap
  // (PostgreSQL 17 does so here): what matters is that no branch reads beyond the window.
  it("an organization's three endpoints, a time window and a deep page: no branch reads past the window", async () => {
    const filter = window();
    const text = await plan(endpoints, filter, middle);
    expect(text).not.toMatch(/Seq Scan on webhook_deliveries/);
    expect(text).toMatch(/Merge Append/);
    const [{ count }] = await bed.sql<{ count: number }>(
      'SELECT count(*)::int AS count FROM webhook_deliveries WHERE created_at >= ?::timestamptz AND created_at <= ?::timestamptz',
      [filter.since, middle.createdAt],
    );
    const examined = [...text.matchAll(/Rows Removed by Filter: (\d+)/g)].map((match) => Number(match[1]));
    for (const rows of examined) expect(rows).toBeLessThanOrEqual(count);
  });

  it.each<[string, DeliveryListFilter]>([
    ['status', { status: 'failed' }],
    ['event type', { eventType: 'organization.updated' }],
    ['status and event type', { status: 'failed', eventType: 'organization.updated' }],
  ])('filtered by %s: still reads each endpoint through webhook_deliveries_endpoint', async (_name, filter) => {
    const text = await plan(endpoints, filter, middle);
    expect(text).toMatch(/webhook_deliveries_endpoint/);
    expect(text).not.toMatch(/Seq Scan on webhook_deliveries/);
    expect(text).not.toMatch(/webhook_deliveries_created/);
  });
});
