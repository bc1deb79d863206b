import { createHash } from 'node:crypto';
import { Client } from 'pg';
import pino from 'pino';
import { hashApiKeyToken, type CreatedApiKey } from '@mrp/authz';
import { PLATFORM_ADMIN, sessionToken, startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, publicApi, queryDatabase, rpcOk, type OrganizationWithKey } from '../support/public-api-fixtures';

interface Column {
  table_schema: string;
  table_name: string;
  column_name: string;
}

const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** CONTRACT "API key": the plaintext token is never stored, and never logged. */
describe('/api/v1 key secrecy', () => {
  const logLines: string[] = [];
  let api: TestApi;
  let org: OrganizationWithKey;
  let keys: CreatedApiKey[];
  beforeAll(async () => {
    // Every line the runtime logs, at debug level: request lines, procedure logs, errors.
    const logger = pino({ name: 'api-test', level: 'debug' }, { write: (line: string) => void logLines.push(line) });
    api = await startTestApi({ PUBLIC_API_BURST: '1000', FEATURE_FLAGS: 'public-api.service-accounts=true' }, { logger });
    org = await createOrganizationWithKey(api);

    // Keys of every kind, each used the ways a client would (and misuse them).
    const limited = await org.createKey({ name: 'limited', fullAccess: false, permissions: ['records.read'] });
    const expiring = await org.createKey({ name: 'expiring', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    const revoked = await org.createKey({ name: 'revoked' });
    const account = await org.rpc<{ id: string }>('serviceAccounts.create', { displayName: 'Robot', roleKeys: ['member'] });
    const robot = await org.rpc<CreatedApiKey>('serviceAccounts.keys.create', { serviceAccountId: account.id, name: 'robot', fullAccess: true });
    keys = [org.key, limited, expiring, revoked, robot];

    for (const key of keys) {
      const client = publicApi(api, key.token);
      await (await client.get('/me')).arrayBuffer();
      await (await client.post(`/models/${org.modelKey}/records`, { data: { title: `by ${key.name}` } })).arrayBuffer();
      await (await client.get(`/models/${org.modelKey}/records?limit=0`)).arrayBuffer(); // 400
      await (await client.get(`/models/${org.modelKey}/records?token=${key.token}`)).arrayBuffer(); // 400 naming the parameter
      await (await client.get('/models/nope')).arrayBuffer(); // 404
      await (await api.request('/api/v1/me', { headers: { Authorization: `Token ${key.token}` } })).arrayBuffer(); // 401
    }
    await org.rpc('apiKeys.revoke', { id: revoked.id });
    await (await publicApi(api, revoked.token).get('/me')).arrayBuffer(); // 401 revoked
    await rpcOk(api, 'users.disable', { userId: org.owner.user.sub }, { token: await sessionToken(PLATFORM_ADMIN) });
    await (await publicApi(api, org.key.token).get('/me')).arrayBuffer(); // 401 owner disabled
    await api.runtime.bus.idle();
  });
  afterAll(() => api.close());

  /** The part of a token that is secret: everything after the display prefix lists show. */
  const secretPart = (key: CreatedApiKey) => key.token.slice(key.prefix.length);

  it('stores no plaintext token in any column of any table, only its SHA-256 hash', async () => {
    const columns = await queryDatabase<Column & Record<string, unknown>>(
      api,
      `SELECT c.table_schema, c.table_name, c.column_name
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE t.table_type = 'BASE TABLE' AND c.table_schema NOT IN ('pg_catalog', 'information_schema')
        ORDER BY 1, 2, 3`,
    );
    const tables = new Map<string, string[]>();
    for (const column of columns) {
      const table = `${quoteIdentifier(column.table_schema)}.${quoteIdentifier(column.table_name)}`;
      tables.set(table, [...(tables.get(table) ?? []), column.column_name]);
    }
    expect([...tables.keys()]).toEqual(
      expect.arrayContaining(['"public"."api_keys"', '"public"."users"', '"public"."records"', '"public"."rate_limit_buckets"']),
    );

    const client = new Client({ connectionString: api.database.directUrl });
    await client.connect();
    try {
      /** Every column holding `needle`, as schema.table.column; each column is read as text, whatever its type. */
      const occurrences = async (needle: string) => {
        const found: string[] = [];
        for (const [table, names] of tables) {
          const counts = names.map((name) => `count(*) FILTER (WHERE strpos(${quoteIdentifier(name)}::text, $1) > 0)::int AS ${quoteIdentifier(name)}`);
          const { rows } = await client.query<Record<string, number>>(`SELECT ${counts.join(', ')} FROM ${table}`, [needle]);
          for (const name of names) if (rows[0][name] > 0) found.push(`${table.replace(/"/g, '')}.${name}`);
        }
        return found;
      };

      // The scanner finds what is there: a marker written through the API shows up in text and jsonb columns.
      expect(await occurrences('by robot')).toEqual(['public.records.data', 'public.records.title']);

      for (const key of keys) {
        expect({ key: key.name, leaks: await occurrences(secretPart(key)) }).toEqual({ key: key.name, leaks: [] });
        // The scan does reach the stored form: the hash, in the keys table only.
        expect(await occurrences(hashApiKeyToken(key.token))).toEqual(['public.api_keys.token_hash']);
      }
    } finally {
      await client.end();
    }
  });

  it('never writes a token to the logs, at debug level', async () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.some((line) => line.includes('"path":"/api/v1/me"'))).toBe(true);
    expect(logLines.some((line) => line.includes('"status":401'))).toBe(true);
    for (const key of keys) {
      const leaking = logLines.filter((line) => line.includes(secretPart(key)));
      expect({ key: key.name, leaking }).toEqual({ key: key.name, leaking: [] });
    }
  });

  it('apiKeys.list and serviceAccounts.keys.list over /rpc answer neither a token nor its SHA-256 hash, anywhere in the body', async () => {
    // A fresh organization: the owner of the one above is disabled by now.
    const lister = await createOrganizationWithKey(api);
    const limited = await lister.createKey({ name: 'listed limited', fullAccess: false, permissions: ['records.read'] });
    const revoked = await lister.createKey({ name: 'listed revoked' });
    await lister.rpc('apiKeys.revoke', { id: revoked.id });
    const account = await lister.rpc<{ id: string }>('serviceAccounts.create', { displayName: 'Listed robot', roleKeys: ['member'] });
    const robot = await lister.rpc<CreatedApiKey>('serviceAccounts.keys.create', { serviceAccountId: account.id, name: 'listed robot', fullAccess: true });
    const personal = [lister.key, limited, revoked];
    for (const key of [...personal, robot]) await (await publicApi(api, key.token).get('/me')).arrayBuffer();

    const listings = [
      { name: 'apiKeys.list', input: {}, keys: personal },
      { name: 'serviceAccounts.keys.list', input: { serviceAccountId: account.id }, keys: [robot] },
    ];
    for (const { name, input, keys: listed } of listings) {
      const { status, body } = await api.rpc<{ items: Array<{ id: string; prefix: string }> }>(name, input, {
        token: lister.owner.session,
        organizationId: lister.organizationId,
      });
      expect({ name, status }).toEqual({ name, status: 200 });
      // The listing does show the keys (so the search below looks at the right thing) ...
      expect(body.items.map((item) => item.id).sort()).toEqual(listed.map((key) => key.id).sort());
      const text = JSON.stringify(body);
      for (const key of listed) {
        const sha256 = createHash('sha256').update(key.token).digest('hex');
        const [stored] = await queryDatabase<{ token_hash: string }>(api, 'SELECT token_hash FROM api_keys WHERE id = $1', [key.id]);
        expect(stored.token_hash).toBe(sha256);
        expect(body.items.find((item) => item.id === key.id)?.prefix).toBe(key.token.slice(0, 12));
        // ... but not the token, its secret part, nor its hash, in any letter case or property.
        const found = [key.token, secretPart(key), sha256, sha256.toUpperCase()].filter((needle) => text.includes(needle));
        expect({ listing: name, key: key.name, found }).toEqual({ listing: name, key: key.name, found: [] });
        for (const item of body.items) expect(Object.keys(item).filter((property) => /token|hash|secret/i.test(property))).toEqual([]);
      }
    }
  });

  it('never echoes a token back in an error body', async () => {
    const [key] = keys;
    const robot = keys[keys.length - 1];
    const misplaced = await publicApi(api, robot.token).get(`/models/${org.modelKey}/records?token=${key.token}`);
    expect(misplaced.status).toBe(400);
    expect(await misplaced.text()).not.toContain(secretPart(key));
    const malformed = await publicApi(api, `${key.token}x`).get('/me');
    expect(malformed.status).toBe(401);
    expect(await malformed.text()).not.toContain(secretPart(key));
  });
});
