import { Type } from '@sinclair/typebox';
import type { LoggingOptions } from '@mikro-orm/postgresql';
import { defineProcedure } from '@mrp/platform';
import { createOrganizationWithKey, expectError, publicApi, queryDatabase, sleep, type OrganizationWithKey } from '../support/public-api-fixtures';
import { startTestApi, type TestApi } from '../support/test-api';

const SleepInput = Type.Object({ seconds: Type.Number({ minimum: 0, maximum: 60 }) });

/** A statement that takes as long as asked, outside a transaction, as records.list runs its query. */
const sleepAlone = defineProcedure({
  name: 'test.sleepAlone',
  summary: 'one slow autocommit statement',
  scope: 'organization',
  permission: null,
  readOnly: true,
  input: SleepInput,
  async handler(ctx, input) {
    const owner: LoggingOptions & { id: number } = { id: ctx.em.id };
    await ctx.em.execute('SELECT pg_sleep(?)', [input.seconds], 'all', owner);
    return { slept: true };
  },
});

/** The same in a procedure's transaction, after a write that must not survive it. */
const sleepInTransaction = defineProcedure({
  name: 'test.sleepInTransaction',
  summary: 'one slow statement in a transaction',
  scope: 'organization',
  permission: null,
  input: SleepInput,
  async handler(ctx, input) {
    await ctx.em.execute('INSERT INTO sleep_probe VALUES (1)');
    await ctx.em.execute('SELECT pg_sleep(?)', [input.seconds]);
    return { slept: true };
  },
});

const extraProcedures = [sleepAlone, sleepInTransaction];

/** Backends of the api's database running a pg_sleep now, this inspection aside. */
async function sleepingStatements(api: TestApi): Promise<number> {
  const rows = await queryDatabase<{ count: string }>(
    api,
    "SELECT count(*) AS count FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE '%pg_sleep(%' AND pid <> pg_backend_pid()",
  );
  return Number(rows[0].count);
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(25);
  }
}

function rpcAs(api: TestApi, org: OrganizationWithKey, name: string, input: unknown, signal?: AbortSignal): Promise<Response> {
  return api.request(`/rpc/${name}`, { method: 'POST', json: input, token: org.owner.session, organizationId: org.organizationId, signal });
}

describe('statement limits at the HTTP edge', () => {
  describe('a statement over DATABASE_STATEMENT_TIMEOUT_MS', () => {
    let api: TestApi;
    let org: OrganizationWithKey;
    beforeAll(async () => {
      api = await startTestApi({ DATABASE_STATEMENT_TIMEOUT_MS: '300' }, { extraProcedures });
      org = await createOrganizationWithKey(api);
      await queryDatabase(api, 'CREATE TABLE sleep_probe (id int)');
    });
    afterAll(() => api.close());

    it('is stopped and answered 503 query_timeout with Retry-After, in the contract error shape, never a 500', async () => {
      const response = await rpcAs(api, org, 'test.sleepAlone', { seconds: 5 });
      expect(response.headers.get('retry-after')).toBe('5');
      const error = await expectError(response, 503, 'query_timeout');
      expect(error.message).toMatch(/took longer than allowed/);
      expect(await sleepingStatements(api)).toBe(0);
    });

    it('in a transaction too, which rolls back', async () => {
      const response = await rpcAs(api, org, 'test.sleepInTransaction', { seconds: 5 });
      await expectError(response, 503, 'query_timeout');
      expect(await queryDatabase(api, 'SELECT * FROM sleep_probe')).toEqual([]);
    });

    it('leaves quick calls alone, the same connections included', async () => {
      const answers = await Promise.all(Array.from({ length: 8 }, () => publicApi(api, org.key.token).get('/me')));
      expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 8 }, () => 200));
    });
  });

  describe('a client that disconnects', () => {
    let api: TestApi;
    let org: OrganizationWithKey;
    beforeAll(async () => {
      api = await startTestApi({}, { extraProcedures });
      org = await createOrganizationWithKey(api);
      await queryDatabase(api, 'CREATE TABLE sleep_probe (id int)');
    });
    afterAll(() => api.close());

    it.each([
      ['an autocommit statement (as records.list runs)', 'test.sleepAlone'],
      ["a statement of the procedure's transaction", 'test.sleepInTransaction'],
    ])('cancels %s: PostgreSQL runs it no more', async (_what, procedure) => {
      const client = new AbortController();
      const answer = rpcAs(api, org, procedure, { seconds: 30 }, client.signal).catch((error: unknown) => error);
      await until(async () => (await sleepingStatements(api)) === 1, 'the statement runs');
      client.abort();
      expect(await answer).toMatchObject({ name: 'AbortError' });
      await until(async () => (await sleepingStatements(api)) === 0, 'the statement is cancelled (it would sleep 30 s)');
      expect(await queryDatabase(api, 'SELECT * FROM sleep_probe')).toEqual([]);
    });

    it('leaves the pool healthy: every connection serves the next calls', async () => {
      const answers = await Promise.all(Array.from({ length: 10 }, () => rpcAs(api, org, 'test.sleepAlone', { seconds: 0 })));
      expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200));
    });
  });

  describe('one organization holds at most ORGANIZATION_MAX_CONNECTIONS at once', () => {
    let api: TestApi;
    let busy: OrganizationWithKey;
    let other: OrganizationWithKey;
    beforeAll(async () => {
      api = await startTestApi({ ORGANIZATION_MAX_CONNECTIONS: '1', ORGANIZATION_QUEUE_TIMEOUT_MS: '200' }, { extraProcedures });
      busy = await createOrganizationWithKey(api);
      other = await createOrganizationWithKey(api);
    });
    afterAll(() => api.close());

    it('a call over it waits in its own queue, then is refused 503 with Retry-After; another organization is served meanwhile', async () => {
      const holding = rpcAs(api, busy, 'test.sleepAlone', { seconds: 1 });
      await until(async () => (await sleepingStatements(api)) === 1, 'the first call runs');
      const refused = await publicApi(api, busy.key.token).get(`/models/${busy.modelKey}/records`);
      expect(refused.headers.get('retry-after')).toBe('1');
      await expectError(refused, 503, 'service_unavailable');
      const served = await publicApi(api, other.key.token).get(`/models/${other.modelKey}/records`);
      expect(served.status).toBe(200);
      expect((await holding).status).toBe(200);
      expect((await publicApi(api, busy.key.token).get(`/models/${busy.modelKey}/records`)).status).toBe(200);
    });
  });

  describe("a filter's values, together", () => {
    let api: TestApi;
    let org: OrganizationWithKey;
    beforeAll(async () => {
      api = await startTestApi();
      org = await createOrganizationWithKey(api);
    });
    afterAll(() => api.close());

    it('over 4000 characters are refused with 400 validation_failed naming the limit, before any query runs', async () => {
      const filter = { or: Array.from({ length: 25 }, (_, index) => ({ field: 'notes', op: 'contains', value: `${index}`.padEnd(900, 'x') })) };
      const response = await publicApi(api, org.key.token).get(`/models/${org.modelKey}/records?filter=${encodeURIComponent(JSON.stringify(filter))}`);
      const error = await expectError(response, 400, 'validation_failed');
      expect(error.details).toEqual([
        { field: 'filter', code: 'out_of_range', message: "The values of a filter's conditions may have at most 4000 characters in all." },
      ]);
    });
  });
});
