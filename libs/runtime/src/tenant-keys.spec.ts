import { Client } from 'pg';
import { JOB_QUEUE_SCHEMA } from '@mrp/platform';
import { createTestDatabase, type TestDatabase } from '@mrp/platform/testing';

/**
 * Tables with an `organization_id` whose primary key or a unique index does not include it, and
 * why. Under a tenant-sharded PostgreSQL (docs/beyond-one-postgres.md), each of these keys must
 * change before the table can be distributed by `organization_id`; the list is here so that a new
 * table that adds one more is a decision, not an accident. A table outside `public` is named
 * `<schema>.<table>`.
 */
const TENANT_KEY_EXCEPTIONS: Readonly<Record<string, string>> = {
  api_keys:
    'id is a global uuid, would become (organization_id, id); token_hash stays global: authenticateApiKey looks a key up by its hash before any organization is known',
  automation_runs:
    'id is a global uuid, would become (organization_id, id); (automation_id, scheduled_for) and the per-minute skip index are per automation, whose organization would lead them',
  automations: 'id is a global uuid, would become (organization_id, id)',
  calendars: 'id is a global uuid, would become (organization_id, id)',
  data_models: 'id is a global uuid, would become (organization_id, id) (the (organization_id, key) key already complies)',
  grid_views: 'id is a global uuid, would become (organization_id, id)',
  invites:
    'id is a global uuid, would become (organization_id, id); token_hash stays global: an invite is accepted by its token before its organization is known',
  kanban_boards: 'id is a global uuid, would become (organization_id, id)',
  memberships: 'id is a global uuid, would become (organization_id, id) (the (organization_id, user_id) key already complies)',
  notification_emails:
    'keyed by its notification, which belongs to a user, not an organization; organization_id is nullable (null: a platform notice), where a delivery failure is also routed',
  records: 'id is a global uuid, would become (organization_id, id); record_access and record_reminders_sent point at it by id alone',
  roles: 'id is a global uuid, would become (organization_id, id) (the (organization_id, key) key already complies)',
  webhook_deliveries:
    'id is a global uuid, would become (organization_id, id); (event_id, endpoint_id) is per endpoint; organization_id is null for a platform-level endpoint',
  webhook_endpoints:
    'id is a global uuid, would become (organization_id, id); organization_id is null for a platform-level endpoint (every organization\'s events)',
};

interface UniqueKey {
  table: string;
  index: string;
  definition: string;
  hasOrganizationId: boolean;
}

describe('tenant keys: every primary key and unique index of a table with organization_id includes it', () => {
  let database: TestDatabase;
  let client: Client;
  let keys: UniqueKey[];

  beforeAll(async () => {
    database = await createTestDatabase();
    client = new Client({ connectionString: database.directUrl });
    await client.connect();
    // Every unique index (a PRIMARY KEY or UNIQUE constraint has one) of every table of the app's
    // own schemas that has an organization_id column; pg-boss's schema is its own.
    const { rows } = await client.query<UniqueKey>(
      `SELECT CASE WHEN n.nspname = 'public' THEN t.relname ELSE n.nspname || '.' || t.relname END AS table,
              i.relname AS index,
              pg_get_indexdef(ix.indexrelid) AS definition,
              org.attnum = ANY(ix.indkey::smallint[]) AS "hasOrganizationId"
         FROM pg_class t
         JOIN pg_namespace n ON n.oid = t.relnamespace
         JOIN pg_attribute org ON org.attrelid = t.oid AND org.attname = 'organization_id' AND NOT org.attisdropped
         JOIN pg_index ix ON ix.indrelid = t.oid AND ix.indisunique
         JOIN pg_class i ON i.oid = ix.indexrelid
        WHERE t.relkind IN ('r', 'p')
          AND n.nspname <> ALL($1::text[]) AND n.nspname NOT LIKE 'pg\\_%'
        ORDER BY 1, 2`,
      [['information_schema', JOB_QUEUE_SCHEMA]],
    );
    keys = rows;
  });

  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  it('finds the tables to check (the query reads the migrated schema)', () => {
    expect(keys.map((key) => key.table)).toEqual(expect.arrayContaining(['records', 'data_models', 'memberships']));
  });

  it('has no table with a key without organization_id that the exceptions do not name', () => {
    const unlisted = keys
      .filter((key) => !key.hasOrganizationId && !(key.table in TENANT_KEY_EXCEPTIONS))
      .map((key) => `${key.table}: ${key.definition}`);
    expect(unlisted).toEqual([]);
  });

  it('names no table that now complies or no longer exists', () => {
    const breaking = new Set(keys.filter((key) => !key.hasOrganizationId).map((key) => key.table));
    const stale = Object.keys(TENANT_KEY_EXCEPTIONS).filter((table) => !breaking.has(table));
    expect(stale).toEqual([]);
  });
});
