import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool, type QueryResultRow } from 'pg';
import { newId } from '@mrp/platform';

/*
 * The floor: the least a hand-written server must do for the same two routes, run in a process of
 * its own, bundled as the api is (PORT, DATABASE_URL, POOL_SIZE, FLOOR_BUCKET). One named
 * statement authenticates (key by SHA-256 hash, owner, membership, grants and role permissions),
 * one more reads or inserts the record. No framework, no validation of field values, no events. With `bucket`, the key statement also takes a token from the key's bucket with the
 * contract's token-bucket upsert (the same table and arithmetic as the API), as the API does.
 */
const AUTH_SQL = `
  SELECT k.organization_id, k.full_access, k.permissions AS allowlist, u.id AS user_id,
         coalesce(array_agg(DISTINCT r.id::text) FILTER (WHERE r.id IS NOT NULL), '{}') AS role_ids,
         coalesce(array_agg(DISTINCT p.permission) FILTER (WHERE p.permission IS NOT NULL), '{}') AS permissions
    FROM api_keys k
    JOIN users u ON u.id = k.owner_user_id AND u.disabled_at IS NULL AND u.deleted_at IS NULL
    JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = u.id
    LEFT JOIN role_grants g ON g.membership_id = m.id
    LEFT JOIN roles r ON r.id = g.role_id
    LEFT JOIN LATERAL unnest(r.permissions) AS p(permission) ON true
   WHERE k.token_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
   GROUP BY k.id, u.id`;

const RECORD_COLUMNS = `r.id, m.key AS model, r.title, r.data,
  to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
  to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt",
  r.created_by AS "createdBy", r.updated_by AS "updatedBy"`;

// The contract's token bucket, taken in the key statement when the key authenticates: $2 burst, $3 rate per second.
const AUTH_AND_TAKE_SQL = `
  WITH caller AS (${AUTH_SQL.replace('SELECT k.organization_id', 'SELECT k.id AS api_key_id, k.organization_id')}),
  taken AS (
    INSERT INTO rate_limit_buckets AS bucket (bucket_key, tokens, updated_at, admitted)
    SELECT caller.api_key_id::text, $2::double precision - 1, clock_timestamp(), true FROM caller
    ON CONFLICT (bucket_key) DO UPDATE SET (tokens, updated_at, admitted) = (
      SELECT CASE WHEN refill.tokens >= 1 THEN refill.tokens - 1 ELSE refill.tokens END, refill.at, refill.tokens >= 1
        FROM (SELECT least($2::double precision,
                           bucket.tokens + greatest(0, extract(epoch FROM clock.at - bucket.updated_at))::double precision * $3::double precision) AS tokens,
                     greatest(clock.at, bucket.updated_at) AS at
                FROM (SELECT clock_timestamp() AS at) AS clock) AS refill)
    RETURNING admitted)
  SELECT caller.*, taken.admitted FROM caller LEFT JOIN taken ON true`;

const BURST = 1_000_000;
const RATE_PER_SECOND = 1_000_000;

// Same visibility as the API: live record, live model, the key's organization, row-level access.
const GET_SQL = `
  SELECT ${RECORD_COLUMNS}
    FROM records r JOIN data_models m ON m.id = r.model_id AND m.archived_at IS NULL
   WHERE r.id = $1 AND r.organization_id = $2 AND r.deleted_at IS NULL
     AND (NOT EXISTS (SELECT 1 FROM record_access ra WHERE ra.record_id = r.id)
          OR EXISTS (SELECT 1 FROM record_access ra WHERE ra.record_id = r.id AND ra.role_id = ANY($3::uuid[])))`;

// The model is resolved by key inside the INSERT: one round trip.
const INSERT_SQL = `
  WITH inserted AS (
    INSERT INTO records (id, organization_id, model_id, title, data, created_by, updated_by)
    SELECT $1, m.organization_id, m.id, $4, $5::jsonb, $6, $6
      FROM data_models m WHERE m.organization_id = $2 AND m.key = $3 AND m.archived_at IS NULL
    RETURNING *
  )
  SELECT ${RECORD_COLUMNS} FROM inserted r JOIN data_models m ON m.id = r.model_id`;

interface Caller {
  admitted?: boolean;
  organization_id: string;
  full_access: boolean;
  allowlist: string[];
  user_id: string;
  role_ids: string[];
  permissions: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

const fail = (response: ServerResponse, status: number, code: string) => send(response, status, { error: { code, message: code } });

function may(caller: Caller, permission: string): boolean {
  return caller.permissions.includes(permission) && (caller.full_access || caller.allowlist.includes(permission));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 1024 * 1024) throw new Error('too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface FloorOptions {
  poolSize: number;
  bucket: boolean;
}

export async function startFloorServer(databaseUrl: string, port: number, { poolSize, bucket }: FloorOptions): Promise<void> {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize });
  const query = <Row extends QueryResultRow>(name: string, text: string, values: unknown[]) => pool.query<Row>({ name, text, values });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const match = /^Bearer (mrk_\S+)$/.exec(request.headers.authorization ?? '');
    if (!match) return fail(response, 401, 'unauthorized');
    const hash = createHash('sha256').update(match[1], 'utf8').digest('hex');
    const { rows: callers } = bucket
      ? await query<Caller>('auth-and-take', AUTH_AND_TAKE_SQL, [hash, BURST, RATE_PER_SECOND])
      : await query<Caller>('auth', AUTH_SQL, [hash]);
    const caller = callers[0];
    if (!caller) return fail(response, 401, 'unauthorized');
    if (bucket && !caller.admitted) return fail(response, 429, 'rate_limited');

    const path = (request.url ?? '').split('?')[0];
    const recordPath = /^\/api\/v1\/records\/([^/]+)$/.exec(path);
    if (request.method === 'GET' && recordPath) {
      if (!may(caller, 'records.read')) return fail(response, 403, 'forbidden');
      if (!UUID.test(recordPath[1])) return fail(response, 404, 'not_found');
      const { rows } = await query('get', GET_SQL, [recordPath[1], caller.organization_id, caller.role_ids]);
      return rows[0] ? send(response, 200, rows[0]) : fail(response, 404, 'not_found');
    }
    const createPath = /^\/api\/v1\/models\/([a-z][a-z0-9_]{0,62})\/records$/.exec(path);
    if (request.method === 'POST' && createPath) {
      if (!may(caller, 'records.create')) return fail(response, 403, 'forbidden');
      let body: { data?: Record<string, unknown> };
      try {
        body = JSON.parse(await readBody(request)) as { data?: Record<string, unknown> };
      } catch {
        return fail(response, 400, 'bad_request');
      }
      const data = body.data;
      if (!data || typeof data !== 'object' || typeof data.title !== 'string') return fail(response, 400, 'validation_failed');
      const { rows } = await query('insert', INSERT_SQL, [newId(), caller.organization_id, createPath[1], data.title, JSON.stringify(data), caller.user_id]);
      return rows[0] ? send(response, 201, rows[0]) : fail(response, 404, 'not_found');
    }
    return fail(response, 404, 'not_found');
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) fail(response, 500, 'internal_error');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => void pool.end().then(() => process.exit(0)));
  });
}

if (require.main === module) {
  const { DATABASE_URL, PORT, POOL_SIZE, FLOOR_BUCKET } = process.env;
  if (!DATABASE_URL || !PORT) throw new Error('floor-server needs DATABASE_URL and PORT');
  startFloorServer(DATABASE_URL, Number(PORT), { poolSize: Number(POOL_SIZE ?? 10), bucket: FLOOR_BUCKET === '1' }).then(
    () => console.log('listening'),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
