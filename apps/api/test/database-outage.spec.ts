import { randomUUID } from 'node:crypto';
import { startTestApi, type TestApi } from './support/test-api';
import { createOrganizationWithKey, publicApi, queryDatabase, sleep, type OrganizationWithKey, type PublicApiClient } from './support/public-api-fixtures';
import { capturedLogger } from '@mrp/platform/testing';

/** Ends every backend of the api's database, as a restart or a failover does to its connections. */
async function terminateEveryBackend(api: TestApi): Promise<void> {
  await queryDatabase(api, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
}

/** Cuts while the writers write: at least MIN_CUTS, until MIN_UNAVAILABLE answers were 503, at most MAX_CUTS. */
const MIN_CUTS = 20;
const MIN_UNAVAILABLE = 10;
const MAX_CUTS = 200;

interface Outcome {
  statuses: number[];
  unavailable: Array<{ code: unknown; retryAfter: string | null }>;
}

/**
 * Creates one record under an Idempotency-Key, retrying while the answer is 503 (as the docs tell
 * a client to): the key it created, and every answer it got on the way.
 */
async function createWithRetries(client: PublicApiClient, modelKey: string, title: string, outcome: Outcome): Promise<string> {
  const key = randomUUID();
  for (;;) {
    const answer = await client.post(`/models/${modelKey}/records`, { data: { title } }, { 'Idempotency-Key': key });
    outcome.statuses.push(answer.status);
    if (answer.status !== 503) {
      expect(answer.status).toBe(201);
      return ((await answer.json()) as { id: string }).id;
    }
    const body = (await answer.json()) as { error: { code: unknown } };
    outcome.unavailable.push({ code: body.error.code, retryAfter: answer.headers.get('retry-after') });
    await sleep(20);
  }
}

describe('a database whose connections are lost under load', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let logs: Array<Record<string, unknown>>;
  beforeAll(async () => {
    const captured = capturedLogger();
    logs = captured.lines;
    api = await startTestApi({ PUBLIC_API_RATE_PER_SECOND: '100000', PUBLIC_API_BURST: '100000' }, { logger: captured.logger });
    org = await createOrganizationWithKey(api);
  });
  afterAll(() => api.close());

  it('answers 503 service_unavailable with Retry-After, never 500; retried writes land exactly once', async () => {
    const client = publicApi(api, org.key.token);
    const outcome: Outcome = { statuses: [], unavailable: [] };
    let writing = true;
    const faults = (async () => {
      // A cut every 50 ms, while the writers write: most requests meet a connection that was just lost.
      // The cuts end once enough have been met, so a slow machine, where reconnecting can take longer
      // than 50 ms, still lets the writers finish.
      for (let cuts = 0; writing && (cuts < MIN_CUTS || outcome.unavailable.length < MIN_UNAVAILABLE) && cuts < MAX_CUTS; cuts++) {
        await terminateEveryBackend(api);
        await sleep(50);
      }
    })();
    const ids = await Promise.all(
      Array.from({ length: 6 }, async (_writer, writer) => {
        const created: string[] = [];
        for (let n = 0; n < 15; n++) created.push(await createWithRetries(client, org.modelKey, `writer ${writer} record ${n}`, outcome));
        return created;
      }),
    ).finally(() => {
      writing = false;
    });
    await faults;

    expect(outcome.statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
    // The fault did happen, and each time the caller was told to come back.
    expect(outcome.unavailable.length).toBeGreaterThan(0);
    expect(outcome.unavailable.filter((answer) => answer.code !== 'service_unavailable' || answer.retryAfter === null)).toEqual([]);

    const created = ids.flat();
    expect(new Set(created).size).toBe(90);
    const stored = await queryDatabase<{ title: string; copies: number }>(
      api,
      'SELECT title, count(*)::int AS copies FROM records WHERE deleted_at IS NULL GROUP BY title',
    );
    expect(stored).toHaveLength(90);
    expect(stored.filter((row) => row.copies !== 1)).toEqual([]);
    expect(logs.filter((line) => line.msg === 'unhandled error')).toEqual([]);
    // One incident: said once, not once per lost connection.
    expect(logs.filter((line) => line.component === 'database').length).toBeLessThanOrEqual(1);
  });

  it('serves every request once the database is reachable again', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => publicApi(api, org.key.token).get('/me')));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200));
  });
});
