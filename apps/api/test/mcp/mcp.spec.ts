import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { EventEnvelope } from '@mrp/platform';
import { startTestApi, type TestApi } from '../support/test-api';
import {
  createOrganizationWithKey,
  expectError,
  publicApi,
  queryDatabase,
  setPublicApiEnabled,
  type OrganizationWithKey,
} from '../support/public-api-fixtures';

interface RecordOut {
  id: string;
  model: string;
  title: string;
  data: Record<string, unknown>;
}

interface ToolAnswer {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
}

interface ToolFailure {
  code: string;
  message: string;
  details?: Array<{ field: string; code: string; message: string }>;
}

const ALL_TOOLS = [
  'count_records',
  'create_records',
  'delete_record',
  'describe_model',
  'get_record',
  'list_models',
  'list_records',
  'search_records',
  'update_record',
];
const WRITE_TOOLS = ['create_records', 'delete_record', 'update_record'];

/** An MCP client of the SDK, connected to the api's /mcp with an API key. */
async function connect(api: TestApi, token: string): Promise<Client> {
  const client = new Client({ name: 'mcp-spec', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

/** A successful tool call's structured content; fails the test on a tool error. */
async function ok<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const answer = await call(client, name, args);
  if (answer.isError) throw new Error(`${name} failed: ${JSON.stringify(answer.structuredContent)}`);
  expect(answer.content[0]?.type).toBe('text');
  return answer.structuredContent as T;
}

/** A tool call's refusal: the API's error, as the text and the structured content both carry it. */
async function refused(client: Client, name: string, args: Record<string, unknown>): Promise<ToolFailure> {
  const answer = await call(client, name, args);
  expect(answer.isError).toBe(true);
  const error = (answer.structuredContent as { error: ToolFailure }).error;
  expect(answer.content[0]?.text).toContain(`${error.code}: ${error.message}`);
  expect(JSON.stringify(answer)).not.toMatch(/\n\s+at |\.ts:\d+|node_modules/);
  return error;
}

const AGENT_ORIGIN = 'https://agent.example';

const rawPost = (api: TestApi, token: string | undefined, body: unknown) =>
  api.request('/mcp', {
    method: 'POST',
    json: body,
    token,
    headers: { Accept: 'application/json, text/event-stream' },
  });

describe('/mcp, the Model Context Protocol door', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let owner: Client;
  const clients: Client[] = [];
  const events: EventEnvelope[] = [];
  let unsubscribe: () => void;

  const connected = async (token: string) => {
    const client = await connect(api, token);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000', PUBLIC_API_CORS_ORIGINS: AGENT_ORIGIN });
    org = await createOrganizationWithKey(api, { name: 'Agents Inc' });
    await org.rpc('dataModels.fields.create', { model: org.modelKey, key: 'parent', name: 'Parent', type: 'RELATION', config: { targetModel: org.modelKey } });
    owner = await connected(org.key.token);
    unsubscribe = api.runtime.bus.subscribe('data-models.*', (event) => void events.push(event));
  }, 60_000);
  afterAll(async () => {
    unsubscribe?.();
    for (const client of clients) await client.close();
    await api?.close();
  });

  describe('the door', () => {
    it('initializes and lists every tool, each with its annotations', async () => {
      expect(owner.getServerVersion()?.name).toBe('model-records-platform');
      const { tools } = await owner.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(ALL_TOOLS);
      for (const tool of tools) {
        const writes = WRITE_TOOLS.includes(tool.name);
        expect(tool.annotations).toMatchObject({ readOnlyHint: !writes, openWorldHint: false });
        expect(typeof tool.annotations?.destructiveHint).toBe('boolean');
        expect(typeof tool.annotations?.idempotentHint).toBe('boolean');
        expect(Object.hasOwn(tool.inputSchema.properties ?? {}, 'idempotencyKey')).toBe(writes);
      }
      expect(tools.find((tool) => tool.name === 'delete_record')?.annotations?.destructiveHint).toBe(true);
    });

    it("cuts each tool's input schema from its procedure's: the same limits, never restated", async () => {
      const { tools } = await owner.listTools();
      const schemaOf = (name: string) => tools.find((tool) => tool.name === name)?.inputSchema as { properties: Record<string, unknown>; required?: string[] };
      const procedureInput = (name: string) =>
        JSON.parse(JSON.stringify(api.runtime.procedures.require(name).input)) as { properties: Record<string, Record<string, unknown>> };
      const list = procedureInput('records.list');
      for (const property of ['model', 'filter', 'q', 'sort', 'fields', 'expand', 'cursor', 'limit']) {
        expect(schemaOf('list_records').properties[property]).toEqual(list.properties[property]);
      }
      expect(schemaOf('search_records').required).toEqual(expect.arrayContaining(['model', 'q']));
      expect(schemaOf('get_record').properties).toEqual(procedureInput('records.get').properties);
      // The tool's own ceiling narrows the batch (1,000 through /api/v1) to 100.
      const { maxItems, ...records } = schemaOf('create_records').properties['records'] as Record<string, unknown>;
      const { maxItems: procedureMaxItems, ...procedureRecords } = procedureInput('records.createMany').properties['records'];
      expect({ maxItems, records }).toEqual({ maxItems: 100, records: procedureRecords });
      expect(procedureMaxItems).toBeGreaterThan(100);
      // Purging is not offered.
      expect(Object.keys(schemaOf('delete_record').properties).sort()).toEqual(['expectedVersion', 'id', 'idempotencyKey']);
    });

    it('answers GET and DELETE with 405 (stateless: no stream, no session to end)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await api.request('/mcp', { method, token: org.key.token, headers: { Accept: 'text/event-stream' } });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
        await response.arrayBuffer();
      }
    });

    it('refuses a request without a valid key with 401, as /api/v1 does', async () => {
      await expectError(await rawPost(api, undefined, { jsonrpc: '2.0', id: 1, method: 'tools/list' }), 401, 'unauthorized');
      await expectError(await rawPost(api, 'mrk_notakey', { jsonrpc: '2.0', id: 1, method: 'tools/list' }), 401, 'unauthorized');
    });

    it('answers a plain HTTP client, as the README calls it, with the JSON-RPC result as JSON', async () => {
      const response = await rawPost(api, org.key.token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_records', arguments: { model: org.modelKey, limit: 2 } },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('x-ratelimit-limit')).toBe('1000');
      const answer = (await response.json()) as { id: number; result: { structuredContent: { items: unknown[] } } };
      expect(answer).toMatchObject({ jsonrpc: '2.0', id: 1, result: { structuredContent: { items: expect.any(Array), nextCursor: null } } });
    });

    it('compresses a large answer as /api/v1 does, and leaves a small one plain', async () => {
      const records = Array.from({ length: 10 }, (_, index) => ({ data: { title: `Compressible ${index}`, notes: 'n'.repeat(200) } }));
      await org.rpc('records.createMany', { model: org.modelKey, records });
      const listing = (limit: number) =>
        api.request('/mcp', {
          method: 'POST',
          json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_records', arguments: { model: org.modelKey, q: 'Compressible', limit } } },
          token: org.key.token,
          headers: { Accept: 'application/json, text/event-stream', 'Accept-Encoding': 'gzip' },
        });
      const large = await listing(10);
      expect(large.headers.get('content-encoding')).toBe('gzip');
      expect(((await large.json()) as { result: { structuredContent: { items: unknown[] } } }).result.structuredContent.items).toHaveLength(10);
      const small = await rawPost(api, org.key.token, { jsonrpc: '2.0', id: 2, method: 'ping' });
      expect(small.headers.get('content-encoding')).toBeNull();
      expect(await small.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    });

    it("follows /api/v1's CORS origins and body limit", async () => {
      const preflight = (origin: string) =>
        api.request('/mcp', {
          method: 'OPTIONS',
          headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type, mcp-protocol-version' },
        });
      const allowed = await preflight(AGENT_ORIGIN);
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(AGENT_ORIGIN);
      expect(allowed.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
      await expectError(await preflight('https://elsewhere.example'), 403, 'forbidden');
      const call = await api.request('/mcp', {
        method: 'POST',
        json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        token: org.key.token,
        headers: { Origin: AGENT_ORIGIN, Accept: 'application/json, text/event-stream' },
      });
      expect(call.status).toBe(200);
      expect(call.headers.get('access-control-allow-origin')).toBe(AGENT_ORIGIN);
      await call.arrayBuffer();
      const huge = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_models', arguments: { padding: 'x'.repeat(1024 * 1024) } } };
      await expectError(await rawPost(api, org.key.token, huge), 413, 'payload_too_large');
    });

    it("checks each request's own Accept and MCP-Protocol-Version, whatever the requests before it sent", async () => {
      const ping = (headers: Record<string, string>) =>
        api.request('/mcp', { method: 'POST', json: { jsonrpc: '2.0', id: 7, method: 'ping' }, token: org.key.token, headers });
      const good = { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18' };
      for (let round = 0; round < 2; round++) {
        expect((await ping(good)).status).toBe(200);
        expect((await ping({ ...good, 'MCP-Protocol-Version': '1999-01-01' })).status).toBe(400);
        expect((await ping({ ...good, Accept: 'application/json' })).status).toBe(406);
      }
    });

    it('takes one JSON-RPC message per request: a batch is a 400', async () => {
      const batch = [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ];
      await expectError(await rawPost(api, org.key.token, batch), 400, 'bad_request');
    });

    it('is 404 on every method while public-api.enabled is off, and answers again once it is on', async () => {
      await setPublicApiEnabled(api, false);
      try {
        await expectError(await rawPost(api, org.key.token, { jsonrpc: '2.0', id: 1, method: 'tools/list' }), 404, 'public_api_disabled');
        await expectError(await api.request('/mcp', { method: 'GET', token: org.key.token }), 404, 'public_api_disabled');
        await expectError(await api.request('/MCP', { method: 'POST', token: org.key.token }), 404, 'public_api_disabled');
      } finally {
        await setPublicApiEnabled(api, true);
      }
      expect((await owner.listTools()).tools.length).toBe(ALL_TOOLS.length);
    });
  });

  describe('the tools', () => {
    it('list_models and describe_model show the models, fields and typed data schemas', async () => {
      const models = await ok<{ items: Array<{ key: string }> }>(owner, 'list_models', {});
      expect(models.items.map((model) => model.key)).toEqual([org.modelKey]);
      const described = await ok<{
        model: { key: string };
        fields: Array<{ key: string; type: string; config: Record<string, unknown> }>;
        dataSchema: { create: { required?: string[]; properties: Record<string, { enum?: unknown[] }> } };
      }>(owner, 'describe_model', { model: org.modelKey });
      expect(described.model.key).toBe(org.modelKey);
      expect(described.fields.find((field) => field.key === 'status')?.type).toBe('SELECT');
      expect(described.fields.find((field) => field.key === 'parent')?.config).toMatchObject({ targetModel: org.modelKey });
      expect(described.dataSchema.create.required).toContain('title');
      expect(JSON.stringify(described.dataSchema.create.properties['status'])).toContain('open');
      expect(await refused(owner, 'describe_model', { model: 'nothing_here' })).toMatchObject({ code: 'not_found' });
    });

    it('create_records, list_records, search_records, count_records, get_record, update_record and delete_record run their procedures', async () => {
      const created = await ok<{ items: RecordOut[] }>(owner, 'create_records', {
        model: org.modelKey,
        records: [
          { data: { title: 'Write the agent guide', status: 'open', amount: 3 } },
          { data: { title: 'Ship the door', status: 'done', amount: 5 } },
          { data: { title: 'Review the guide', status: 'open', amount: 8 } },
        ],
      });
      expect(created.items.map((record) => record.title)).toEqual(['Write the agent guide', 'Ship the door', 'Review the guide']);
      const [guide, door, review] = created.items;

      const filter = { field: 'status', op: 'eq', value: 'open' };
      const firstPage = await ok<{ items: RecordOut[]; nextCursor: string | null }>(owner, 'list_records', {
        model: org.modelKey,
        filter,
        sort: 'amount',
        fields: 'title,amount',
        limit: 1,
      });
      expect(firstPage.items).toEqual([expect.objectContaining({ id: guide.id, data: { title: 'Write the agent guide', amount: 3 } })]);
      expect(firstPage.nextCursor).toEqual(expect.any(String));
      const secondPage = await ok<{ items: RecordOut[]; nextCursor: string | null }>(owner, 'list_records', {
        model: org.modelKey,
        filter,
        sort: 'amount',
        fields: 'title,amount',
        limit: 1,
        cursor: firstPage.nextCursor,
      });
      expect(secondPage.items.map((record) => record.id)).toEqual([review.id]);

      const found = await ok<{ items: RecordOut[] }>(owner, 'search_records', { model: org.modelKey, q: 'GUIDE' });
      expect(found.items.map((record) => record.id).sort()).toEqual([guide.id, review.id].sort());
      expect(await ok(owner, 'count_records', { model: org.modelKey, q: 'GUIDE', filter })).toEqual({ count: 2, capped: false });

      const got = await ok<RecordOut>(owner, 'get_record', { id: door.id });
      expect(got).toMatchObject({ id: door.id, title: 'Ship the door', data: { status: 'done', amount: 5 } });

      const updated = await ok<RecordOut>(owner, 'update_record', { id: door.id, data: { amount: 6, notes: null } });
      expect(updated.data['amount']).toBe(6);

      expect(await ok(owner, 'delete_record', { id: door.id })).toEqual({ id: door.id, deleted: true, hard: false });
      expect(await refused(owner, 'get_record', { id: door.id })).toMatchObject({ code: 'not_found' });
      // Soft: the record is in the trash, not purged.
      const [row] = await queryDatabase<{ deleted: boolean }>(api, 'SELECT deleted_at IS NOT NULL AS deleted FROM records WHERE id = $1', [door.id]);
      expect(row.deleted).toBe(true);
    });

    it('answers a short summary beside the structured content', async () => {
      const answer = await call(owner, 'list_models', {});
      expect(answer.content[0]).toEqual({ type: 'text', text: expect.stringMatching(/^1 model: tasks \(Tasks\)$/) });
      expect(JSON.parse(answer.content[1]?.text ?? '')).toEqual(answer.structuredContent);
    });

    it("refuses bad arguments as tool errors with the API's code, message and details", async () => {
      const tooBig = await refused(owner, 'list_records', { model: org.modelKey, limit: 500 });
      expect(tooBig.code).toBe('validation_failed');
      expect(tooBig.details).toEqual([expect.objectContaining({ field: 'limit' })]);
      const hard = await refused(owner, 'delete_record', { id: randomUUID(), hard: true });
      expect(hard.code).toBe('validation_failed');
      const badData = await refused(owner, 'create_records', { model: org.modelKey, records: [{ data: { title: 'x', status: 'maybe' } }] });
      expect(badData).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'records[0].data.status' })] });
      expect(await refused(owner, 'get_record', { id: randomUUID() })).toMatchObject({ code: 'not_found' });
    });

    it('refuses a call that would touch more than 100 records, asking to page, and writes nothing', async () => {
      const records = Array.from({ length: 101 }, (_, index) => ({ data: { title: `Bulk ${index}` } }));
      const error = await refused(owner, 'create_records', { model: org.modelKey, records });
      expect(error.code).toBe('validation_failed');
      expect(error.message).toMatch(/at most 100 records.*calls of up to 100/);
      const [row] = await queryDatabase<{ count: number }>(api, "SELECT count(*)::int AS count FROM records WHERE title LIKE 'Bulk %'");
      expect(row.count).toBe(0);
    });

    it('answers an unknown tool with a protocol error', async () => {
      await expect(owner.callTool({ name: 'purge_everything', arguments: {} })).rejects.toThrow(/Unknown tool purge_everything/);
    });
  });

  describe('resources and the prompt', () => {
    it('lists each model as a model:// resource whose content is its typed description', async () => {
      const { resources } = await owner.listResources();
      expect(resources).toEqual([expect.objectContaining({ uri: `model://${org.modelKey}`, name: org.modelKey, mimeType: 'application/json' })]);
      const { resourceTemplates } = await owner.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['model://{key}']);
      const { contents } = await owner.readResource({ uri: `model://${org.modelKey}` });
      const described = JSON.parse(String((contents[0] as { text: string }).text)) as unknown;
      expect(described).toEqual(await ok(owner, 'describe_model', { model: org.modelKey }));
      await expect(owner.readResource({ uri: 'model://nothing_here' })).rejects.toThrow(/not_found/);
    });

    it("explains the filter language with examples from the organization's own fields", async () => {
      const { prompts } = await owner.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(['work_with_data']);
      const { messages } = await owner.getPrompt({ name: 'work_with_data' });
      const text = (messages[0].content as { text: string }).text;
      expect(text).toContain(`- ${org.modelKey} (Tasks): title TEXT, status SELECT`);
      expect(text).toContain(`list_records {"model":"${org.modelKey}","filter":{"field":"status","op":"eq","value":"open"}}`);
      expect(text).toMatch(/isEmpty, isNotEmpty/);
    });

    it('a key without data-models.read cannot read the resources either', async () => {
      const recordsOnly = await connected((await org.createKey({ name: 'Records only', fullAccess: false, permissions: ['records.read'] })).token);
      await expect(recordsOnly.readResource({ uri: `model://${org.modelKey}` })).rejects.toThrow(/forbidden/);
      expect(await refused(recordsOnly, 'list_models', {})).toMatchObject({ code: 'forbidden' });
    });
  });

  describe('the same rules as /api/v1', () => {
    it('a read-only key reads, and every write tool is refused (forbidden) without writing', async () => {
      const readOnly = await connected((await org.createKey({ name: 'Agent, read only', fullAccess: false, permissions: ['data-models.read', 'records.read'] })).token);
      const { tools } = await readOnly.listTools();
      expect(tools.length).toBe(ALL_TOOLS.length);
      const [record] = (await ok<{ items: RecordOut[] }>(owner, 'create_records', { model: org.modelKey, records: [{ data: { title: 'Read me' } }] })).items;
      expect((await ok<RecordOut>(readOnly, 'get_record', { id: record.id })).title).toBe('Read me');
      expect((await ok<{ items: unknown[] }>(readOnly, 'list_records', { model: org.modelKey })).items.length).toBeGreaterThan(0);
      await ok(readOnly, 'describe_model', { model: org.modelKey });
      const writes: Array<[string, Record<string, unknown>]> = [
        ['create_records', { model: org.modelKey, records: [{ data: { title: 'Sneaked in' } }] }],
        ['update_record', { id: record.id, data: { title: 'Changed' } }],
        ['delete_record', { id: record.id }],
      ];
      for (const [name, args] of writes) expect(await refused(readOnly, name, args)).toMatchObject({ code: 'forbidden' });
      expect((await ok<RecordOut>(owner, 'get_record', { id: record.id })).title).toBe('Read me');
    });

    it('a member never sees or counts a record restricted to a role she lacks, through any tool or expand', async () => {
      const financeRoleId = (await org.rpc<{ id: string }>('rbac.roles.create', { key: 'finance', name: 'Finance', permissions: ['records.read'] })).id;
      const member = await org.addMember(['member'], 'agent-operator');
      const agent = await connected((await org.createKey({ name: 'Member agent' }, member.session)).token);
      const [secret, pointer] = (
        await ok<{ items: RecordOut[] }>(owner, 'create_records', {
          model: org.modelKey,
          records: [{ data: { title: 'Secret salaries' } }, { data: { title: 'Points at the secret' } }],
        })
      ).items;
      await ok(owner, 'update_record', { id: pointer.id, data: { parent: secret.id } });
      await org.rpc('records.setAccess', { id: secret.id, roleIds: [financeRoleId] });

      expect(await refused(agent, 'get_record', { id: secret.id })).toMatchObject({ code: 'not_found' });
      expect(await refused(agent, 'update_record', { id: secret.id, data: { title: 'Mine now' } })).toMatchObject({ code: 'not_found' });
      expect(await refused(agent, 'delete_record', { id: secret.id })).toMatchObject({ code: 'not_found' });
      const listed = await ok<{ items: RecordOut[] }>(agent, 'list_records', { model: org.modelKey, limit: 100 });
      expect(listed.items.map((record) => record.id)).not.toContain(secret.id);
      const searched = await ok<{ items: RecordOut[] }>(agent, 'search_records', { model: org.modelKey, q: 'salaries' });
      expect(searched.items).toEqual([]);
      expect(await ok(agent, 'count_records', { model: org.modelKey, q: 'salaries' })).toEqual({ count: 0, capped: false });
      const expanded = await ok<RecordOut>(agent, 'get_record', { id: pointer.id, expand: 'parent' });
      expect(expanded.data['parent']).toEqual({ id: secret.id });
      const expandedList = await ok<{ items: RecordOut[] }>(agent, 'list_records', { model: org.modelKey, expand: 'parent', filter: { field: 'id', op: 'eq', value: pointer.id } });
      expect(expandedList.items[0]?.data['parent']).toEqual({ id: secret.id });
      // The owner holds no finance role either; a finance member would see it (the record is really there).
      const [row] = await queryDatabase<{ title: string }>(api, 'SELECT title FROM records WHERE id = $1', [secret.id]);
      expect(row.title).toBe('Secret salaries');
    });

    it('an idempotent retry of a write answers the first outcome again and creates once', async () => {
      const idempotencyKey = randomUUID();
      const args = { model: org.modelKey, records: [{ data: { title: 'Exactly once' } }], idempotencyKey };
      const first = await call(owner, 'create_records', args);
      const retry = await call(owner, 'create_records', args);
      expect(first.isError).toBeFalsy();
      expect(retry.structuredContent).toEqual(first.structuredContent);
      expect(retry.content[0]?.text).toMatch(/answered again/);
      const [row] = await queryDatabase<{ count: number }>(api, "SELECT count(*)::int AS count FROM records WHERE title = 'Exactly once'");
      expect(row.count).toBe(1);
      const other = await refused(owner, 'create_records', { ...args, records: [{ data: { title: 'Another request' } }] });
      expect(other.code).toBe('idempotency_conflict');
    });

    it('marks the events of its writes via: "mcp", and /api/v1 writes stay unmarked', async () => {
      const [record] = (await ok<{ items: RecordOut[] }>(owner, 'create_records', { model: org.modelKey, records: [{ data: { title: 'Marked' } }] })).items;
      await ok(owner, 'update_record', { id: record.id, data: { amount: 1 } });
      await ok(owner, 'delete_record', { id: record.id });
      const rest = (await (await publicApi(api, org.key.token).post(`/models/${org.modelKey}/records`, { data: { title: 'Unmarked' } })).json()) as RecordOut;
      await api.runtime.bus.idle();
      const of = (id: string) => events.filter((event) => (event.payload as { recordId?: string }).recordId === id);
      expect(of(record.id).map((event) => [event.type, event.metadata])).toEqual([
        ['data-models.record-created', { via: 'mcp' }],
        ['data-models.record-updated', { via: 'mcp' }],
        ['data-models.record-deleted', { via: 'mcp' }],
      ]);
      expect(of(rest.id).map((event) => event.metadata)).toEqual([undefined]);
    });
  });

  describe('the rate bucket', () => {
    let limited: TestApi;
    beforeAll(async () => {
      // A second api process on the same database with a bucket of 3: the buckets are the keys', shared.
      limited = await startTestApi({ PUBLIC_API_BURST: '3', PUBLIC_API_RATE_PER_SECOND: '0.01' }, { database: api.database });
    });
    afterAll(() => limited?.close());

    it('takes one token per request, so a tool call is one token, and refuses the call past the burst with 429', async () => {
      const token = (await org.createKey({ name: 'Bucket' })).token;
      const client = await connect(limited, token); // initialize and its notification: two tokens
      clients.push(client);
      await ok(client, 'list_models', {});
      await expect(client.callTool({ name: 'list_models', arguments: {} })).rejects.toThrow(/rate_limited/);
      const refusedAnswer = await rawPost(limited, token, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'list_models', arguments: {} } });
      expect(refusedAnswer.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(refusedAnswer.headers.get('x-ratelimit-remaining')).toBe('0');
      await expectError(refusedAnswer, 429, 'rate_limited');
    });
  });
});
