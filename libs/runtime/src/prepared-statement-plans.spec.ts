import { Client } from 'pg';
import {
  createTestDatabase,
  definedPreparedStatements,
  genericPlanReads,
  type TestDatabase,
} from '@mrp/platform/testing';
// Loading every module defines every prepared statement.
import './modules';
// The composition defines the webhook outbox's statements, over authz's member-access rule.
import './webhooks';

/**
 * Every prepared statement of the product (the hot paths: the API-key lookup, the model and its
 * fields that every record operation reads, record reads by id, the record INSERT, the webhook
 * outbox's INSERT) keeps its index lookups in the plan PostgreSQL settles on, whatever the
 * statistics say. The tables hold 100,000 rows each, all in one organization, while their
 * statistics say they are empty: analysed before the rows came, as after a burst of writes that
 * autovacuum has not caught up with. A sequential scan, or an index that is not one of the
 * statement's declared lookups (one leading with the organization reads the whole organization),
 * fails.
 */

const ROWS = 100_000;
const ORGANIZATION = '0195a000-0000-7000-8000-000000000001';

/** Every table a prepared statement reads. */
const TABLES = [
  'users',
  'memberships',
  'roles',
  'role_grants',
  'api_keys',
  'data_models',
  'data_fields',
  'records',
  'record_access',
  'rate_limit_buckets',
  'webhook_endpoints',
  'automations',
  'automation_runs',
];

// One INSERT ... SELECT per table; $1 is the number of rows, $2 the organization.
const FILL = [
  `INSERT INTO users (id, email, kind, display_name)
   SELECT 'user-' || g, 'user' || g || '@example.com', 'HUMAN', 'User ' || g FROM generate_series(1, $1::int) g`,
  `INSERT INTO memberships (id, organization_id, user_id)
   SELECT gen_random_uuid(), $2::uuid, 'user-' || g FROM generate_series(1, $1::int) g`,
  `INSERT INTO roles (id, organization_id, key, name, permissions)
   SELECT gen_random_uuid(), $2::uuid, 'role-' || g, 'Role ' || g, '{records.read}' FROM generate_series(1, $1::int) g`,
  `INSERT INTO role_grants (id, membership_id, role_id, granted_by)
   SELECT gen_random_uuid(), m.id, r.id, 'test'
     FROM (SELECT id, row_number() OVER () AS n FROM memberships) m JOIN (SELECT id, row_number() OVER () AS n FROM roles) r USING (n)`,
  `INSERT INTO api_keys (id, organization_id, owner_user_id, name, token_hash, prefix, full_access, created_by)
   SELECT gen_random_uuid(), $2::uuid, 'user-' || g, 'Key', encode(sha256(g::text::bytea), 'hex'), 'mrk_plans', true, 'test'
     FROM generate_series(1, $1::int) g`,
  `INSERT INTO data_models (id, organization_id, key, name)
   SELECT gen_random_uuid(), $2::uuid, 'model_' || g, 'Model ' || g FROM generate_series(1, $1::int) g`,
  `INSERT INTO data_fields (id, model_id, key, name, type)
   SELECT gen_random_uuid(), id, 'field', 'Field', 'TEXT' FROM data_models`,
  `INSERT INTO records (id, organization_id, model_id, title, data, created_by, updated_by)
   SELECT gen_random_uuid(), $2::uuid, (SELECT id FROM data_models ORDER BY key LIMIT 1), 'Record ' || g,
          jsonb_build_object('title', 'Record ' || g), 'test', 'test'
     FROM generate_series(1, $1::int) g`,
  `INSERT INTO record_access (record_id, role_id)
   SELECT id, (SELECT id FROM roles ORDER BY key LIMIT 1) FROM records`,
  `INSERT INTO rate_limit_buckets (bucket_key, tokens, updated_at, admitted)
   SELECT 'bucket-' || g, 1, now(), true FROM generate_series(1, $1::int) g`,
  // Triggers are off while filling (session_replication_role): the queue its trigger would give is written out.
  `INSERT INTO webhook_endpoints (id, organization_id, url, subscriptions, secret_hash, created_by, delivery_queue)
   SELECT gen_random_uuid(), $2::uuid, 'https://example.com/hooks/' || g, '{*}', 'hash', 'test', 0 FROM generate_series(1, $1::int) g`,
  `INSERT INTO automations (id, organization_id, name, owner_id, trigger_type, event_pattern, actions, created_by)
   SELECT gen_random_uuid(), $2::uuid, 'Automation ' || g, 'user-' || g, 'event', 'data-models.*', '[]', 'test' FROM generate_series(1, $1::int) g`,
  `INSERT INTO automation_runs (id, automation_id, organization_id, trigger)
   SELECT gen_random_uuid(), id, organization_id, 'event' FROM automations`,
];

async function fillDatabase(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  await client.connect();
  for (const table of TABLES) {
    // autovacuum must not analyse the rows behind the test's back.
    await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    await client.query(`ANALYZE ${table}`);
  }
  // The rows are consistent by construction: no foreign-key triggers, a third of the time.
  await client.query('SET session_replication_role = replica');
  await client.query(`INSERT INTO organizations (id, name, slug, created_by) VALUES ($1, 'Plans', 'plans', 'test')`, [ORGANIZATION]);
  for (const fill of FILL) await client.query(fill, [ROWS, ORGANIZATION].filter((_value, index) => fill.includes(`$${index + 1}`)));
  await client.query('RESET session_replication_role');
  return client;
}

describe('the plans of prepared statements', () => {
  const statements = definedPreparedStatements();

  it('cover the hot paths: the key lookup, the model lookup, the record reads by id, the record INSERT, the delivery INSERTs', () => {
    const texts = statements.map((statement) => statement.text);
    expect(texts.filter((text) => text.includes('k.token_hash = $1')).length).toBe(2);
    expect(texts.filter((text) => text.includes('m.organization_id = $1::uuid AND m.key = $2::text')).length).toBe(1);
    expect(texts.filter((text) => text.includes('m.key AS model_key, m.fields_version')).length).toBe(6);
    expect(texts.filter((text) => text.startsWith('INSERT INTO records')).length).toBe(1);
    // One delivery (a parameter per column) and many (a JSON array of rows).
    expect(texts.filter((text) => /^WITH queued AS \(\s+INSERT INTO webhook_deliveries/.test(text)).length).toBe(2);
  });

  describe('on 100,000 rows a table, analysed while empty', () => {
    let database: TestDatabase;
    let client: Client;
    beforeAll(async () => {
      database = await createTestDatabase();
      client = await fillDatabase(database.directUrl);
    }, 120_000);
    afterAll(async () => {
      await client?.end();
      await database?.drop();
    });

    it.each(statements.map((statement) => [statement.plan.purpose, statement] as const))(
      'read only through their declared indexes: %s',
      async (_purpose, statement) => {
        const reads = await genericPlanReads(client, statement);
        expect(reads.sequentialScans).toEqual([]);
        expect(reads.indexes.length).toBeGreaterThan(0);
        expect(reads.indexes.filter((index) => !statement.plan.indexes.includes(index))).toEqual([]);
      },
    );
  });
});
