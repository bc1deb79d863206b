import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, expectError, publicApi, type OrganizationWithKey, type PublicApiClient } from '../support/public-api-fixtures';

interface Count {
  count: number;
  capped: boolean;
}

interface ToolAnswer {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
}

const query = (parameters: Record<string, unknown>) =>
  new URLSearchParams(Object.entries(parameters).map(([name, value]): [string, string] => [name, typeof value === 'string' ? value : JSON.stringify(value)])).toString();

/** records.count through its three doors: GET /api/v1/models/{key}/records/count, /rpc/records.count and the count_records tool. */
describe('Counting records', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let owner: PublicApiClient;
  let member: PublicApiClient;
  let memberToken: string;
  let memberSession: string;
  let financeToken: string;
  let financeSession: string;
  const clients: Client[] = [];
  const open = { field: 'status', op: 'eq', value: 'open' };

  const restCount = async (client: PublicApiClient, parameters: Record<string, unknown> = {}, model = org.modelKey): Promise<Count> => {
    const response = await client.get(`/models/${model}/records/count${Object.keys(parameters).length ? `?${query(parameters)}` : ''}`);
    expect({ parameters, status: response.status }).toEqual({ parameters, status: 200 });
    return (await response.json()) as Count;
  };
  /** /rpc/records.count with a signed-in member's session. */
  const rpcCount = async (session: string, input: Record<string, unknown>): Promise<Count> => {
    const { status, body } = await api.rpc<Count>('records.count', { model: org.modelKey, ...input }, { token: session, organizationId: org.organizationId });
    expect({ input, status }).toEqual({ input, status: 200 });
    return body;
  };
  const mcpClient = async (token: string): Promise<Client> => {
    const client = new Client({ name: 'count-spec', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  };
  const countTool = async (client: Client, args: Record<string, unknown>): Promise<ToolAnswer> =>
    (await client.callTool({ name: 'count_records', arguments: { model: org.modelKey, ...args } })) as ToolAnswer;

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '10000' });
    org = await createOrganizationWithKey(api, { name: 'Counting Inc' });
    owner = publicApi(api, org.key.token);
    const financeRoleId = (await org.rpc<{ id: string }>('rbac.roles.create', { key: 'finance', name: 'Finance', permissions: ['records.read'] })).id;
    const people = await org.addMember(['member'], 'counter');
    memberSession = people.session;
    memberToken = (await org.createKey({ name: 'Member key' }, people.session)).token;
    member = publicApi(api, memberToken);
    const accountant = await org.addMember(['member', 'finance'], 'accountant');
    financeSession = accountant.session;
    financeToken = (await org.createKey({ name: 'Finance key' }, accountant.session)).token;

    const { items } = await org.rpc<{ items: Array<{ id: string }> }>('records.createMany', {
      model: org.modelKey,
      records: [
        { data: { title: 'Invoice Acme', status: 'open', amount: 10 } },
        { data: { title: 'Invoice Globex', status: 'open', amount: 20 } },
        { data: { title: 'Quote Acme', status: 'done', amount: 30 } },
        { data: { title: 'Salaries Acme', status: 'open', amount: 40 } },
        { data: { title: 'Old invoice', status: 'done', amount: 50 } },
      ],
    });
    // Salaries: restricted to finance, which the member lacks. Old invoice: in the trash.
    await org.rpc('records.setAccess', { id: items[3].id, roleIds: [financeRoleId] });
    await org.rpc('records.delete', { id: items[4].id });
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.close();
    await api?.close();
  });

  it('counts the records the list would show, with filter and q, through REST and /rpc alike', async () => {
    // The owner holds no finance role: the restricted record is hidden from her too.
    expect(await restCount(owner)).toEqual({ count: 3, capped: false });
    expect(await restCount(owner, { filter: open })).toEqual({ count: 2, capped: false });
    expect(await restCount(owner, { q: 'acme' })).toEqual({ count: 2, capped: false });
    expect(await restCount(owner, { q: 'acme', filter: open })).toEqual({ count: 1, capped: false });
    expect(await restCount(owner, { filter: { field: 'amount', op: 'gte', value: 1000 } })).toEqual({ count: 0, capped: false });
    expect(await restCount(owner, { deleted: 'only' })).toEqual({ count: 1, capped: false });

    for (const input of [{}, { filter: open }, { q: 'acme' }, { q: 'acme', filter: open }, { deleted: 'only' }]) {
      expect(await rpcCount(org.owner.session, input)).toEqual(await restCount(owner, input));
    }
  });

  it('agrees with the list for the same input', async () => {
    const response = await owner.get(`/models/${org.modelKey}/records?${query({ filter: open, limit: 100 })}`);
    const { items } = (await response.json()) as { items: unknown[] };
    expect(await restCount(owner, { filter: open })).toEqual({ count: items.length, capped: false });
  });

  it('never counts a record restricted to a role the caller lacks, at any door', async () => {
    expect(await restCount(member)).toEqual({ count: 3, capped: false });
    expect(await restCount(member, { q: 'salaries' })).toEqual({ count: 0, capped: false });
    expect(await rpcCount(memberSession, { q: 'salaries' })).toEqual({ count: 0, capped: false });
    const agent = await mcpClient(memberToken);
    expect((await countTool(agent, { q: 'salaries' })).structuredContent).toEqual({ count: 0, capped: false });
    expect((await countTool(agent, {})).structuredContent).toEqual({ count: 3, capped: false });
    // A holder of the role counts it: the record is really there.
    expect(await rpcCount(financeSession, { q: 'salaries' })).toEqual({ count: 1, capped: false });
    expect(await restCount(publicApi(api, financeToken))).toEqual({ count: 4, capped: false });
  });

  it('counts the trash only with records.delete, as the list shows it', async () => {
    const reader = publicApi(api, (await org.createKey({ name: 'Reader', fullAccess: false, permissions: ['records.read'] })).token);
    expect(await restCount(reader)).toEqual({ count: 3, capped: false });
    await expectError(await reader.get(`/models/${org.modelKey}/records/count?deleted=only`), 403, 'forbidden');
    const blind = publicApi(api, (await org.createKey({ name: 'Models only', fullAccess: false, permissions: ['data-models.read'] })).token);
    await expectError(await blind.get(`/models/${org.modelKey}/records/count`), 403, 'forbidden');
  });

  it("refuses what the list refuses: an unknown model, a bad filter, a parameter the count does not take", async () => {
    await expectError(await owner.get('/models/nothing_here/records/count'), 404, 'not_found');
    const badFilter = await expectError(await owner.get(`/models/${org.modelKey}/records/count?${query({ filter: { field: 'nope', op: 'eq', value: 1 } })}`), 400, 'validation_failed');
    expect(JSON.stringify(badFilter.details)).toContain('nope');
    await expectError(await owner.get(`/models/${org.modelKey}/records/count?limit=5`), 400, 'validation_failed');
  });

  it('count_records answers the count as structured content and a one-line summary, and is read-only', async () => {
    const agent = await mcpClient(org.key.token);
    const { tools } = await agent.listTools();
    const tool = tools.find((candidate) => candidate.name === 'count_records');
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(Object.keys(tool?.inputSchema.properties ?? {}).sort()).toEqual(['filter', 'model', 'q']);
    const answer = await countTool(agent, { filter: open });
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toEqual({ count: 2, capped: false });
    expect(answer.content[0]).toEqual({ type: 'text', text: `2 matching records of ${org.modelKey}` });
    const refused = await countTool(agent, { filter: { field: 'nope', op: 'eq', value: 1 } });
    expect(refused.isError).toBe(true);
    expect((refused.structuredContent as { error: { code: string } }).error.code).toBe('validation_failed');
  });

  it('stops counting at the cap and says so', async () => {
    await org.rpc('dataModels.create', { key: 'events', name: 'Events' });
    const batch = Array.from({ length: 1000 }, (_, index) => ({ data: { title: `Event ${index}` } }));
    for (let round = 0; round < 10; round++) await org.rpc('records.createMany', { model: 'events', records: batch });
    expect(await restCount(owner, {}, 'events')).toEqual({ count: 10_000, capped: false });
    await org.rpc('records.createMany', { model: 'events', records: batch.slice(0, 1) });
    expect(await restCount(owner, {}, 'events')).toEqual({ count: 10_000, capped: true });
    const agent = await mcpClient(org.key.token);
    const answer = await countTool(agent, { model: 'events' });
    expect(answer.content[0]?.text).toBe('More than 10,000 records of events');
  }, 120_000);
});
