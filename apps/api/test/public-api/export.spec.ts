import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Client } from 'pg';
import Papa from 'papaparse';
import { newHuman, sessionToken, startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, expectError, publicApi, queryDatabase, sleep, type OrganizationWithKey, type PublicApiClient } from '../support/public-api-fixtures';
import { createEveryTypeModel, EVERY_TYPE_FIELDS, EVERY_TYPE_MODEL } from '../support/every-field-type';

interface Item {
  id: string;
  title: string;
  data: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** What a CSV cell holds for a value, as the docs say: text as it is (formula-like text after a '), numbers and booleans as JSON writes them, lists and objects as JSON. */
function documentedCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return typeof value !== 'number' && typeof value !== 'boolean' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

function csvRows(text: string): string[][] {
  const parsed = Papa.parse<string[]>(text, { newline: '\r\n' });
  expect(parsed.errors).toEqual([]);
  // The last line break ends the last row: no empty row after it.
  return parsed.data.filter((row) => !(row.length === 1 && row[0] === ''));
}

function ndjsonLines(text: string): unknown[] {
  if (text === '') return [];
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n').map((line) => JSON.parse(line) as unknown);
}

/** How many places of the organization's share calls hold now. */
const running = (api: TestApi, org: OrganizationWithKey) => api.runtime.organizationShare.running(org.organizationId);

/**
 * Runs `before` just ahead of the n-th next call of the organization into its connection share
 * (the first holds the export's procedure and first page, each later one one more page), once.
 */
function beforeShareCall(api: TestApi, org: OrganizationWithKey, n: number, before: () => Promise<void>): () => void {
  const share = api.runtime.organizationShare;
  const original = share.run.bind(share);
  const restore = () => {
    share.run = original;
  };
  let calls = 0;
  share.run = async <T>(organizationId: string | null | undefined, work: () => Promise<T>): Promise<T> => {
    if (organizationId === org.organizationId && ++calls === n) {
      restore();
      await before();
    }
    return original(organizationId, work);
  };
  return restore;
}

async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`Still waiting for ${what}`);
}

/** GET /api/v1/models/{key}/records/export: every record the key may read, as CSV or NDJSON, streamed. */
describe('record export over /api/v1', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let owner: PublicApiClient;
  let reader: PublicApiClient;
  let relatedTask: Item;

  const exported = async (client: PublicApiClient, query: string) => {
    const response = await client.get(`/models/${query}`);
    expect(response.status).toBe(200);
    return { response, text: await response.text() };
  };

  beforeAll(async () => {
    // One place per organization, and a short wait for it: a page that cannot get one fails mid-stream, on cue.
    api = await startTestApi({ PUBLIC_API_BURST: '10000', ORGANIZATION_MAX_CONNECTIONS: '1', ORGANIZATION_QUEUE_TIMEOUT_MS: '100' });
    org = await createOrganizationWithKey(api);
    owner = publicApi(api, org.key.token);
    reader = publicApi(api, (await org.createKey({ name: 'Reader', fullAccess: false, permissions: ['records.read', 'data-models.read'] })).token);
    await createEveryTypeModel(org);
    const task = await owner.post('/models/tasks/records', { data: { title: 'Related task' } });
    relatedTask = (await task.json()) as Item;
    const invoices = [
      {
        title: 'Full, "quoted", and more',
        notes: 'Line one\r\nline two',
        body: '<p>Rich</p>',
        score: 42.5,
        quantity: -3,
        paid: true,
        due_on: '2030-01-05',
        sent_at: '2030-01-05T10:30:00.000Z',
        status: 'sent',
        labels: ['urgent', 'vip'],
        customer: relatedTask.id,
        website: 'https://example.com/a?b=c,d',
        contact: 'billing@example.com',
        contract: { url: 'https://files.example.com/contract.pdf', name: 'contract.pdf', mimeType: 'application/pdf', size: 1234 },
        photos: [{ url: 'https://files.example.com/p.png', name: 'p.png', mimeType: 'image/png' }],
      },
      { title: 'Sparse', score: 0 },
    ];
    const invoiceBatch = await owner.post(`/models/${EVERY_TYPE_MODEL.key}/records`, { records: invoices.map((data) => ({ data })) });
    if (invoiceBatch.status !== 201) throw new Error(await invoiceBatch.text());
  }, 60_000);
  afterAll(() => api.close());

  it('exports a model with every field type as NDJSON equal to the list, and as CSV with a value per documented rule', async () => {
    const list = (await (await owner.get(`/models/${EVERY_TYPE_MODEL.key}/records?limit=100&expand=customer`)).json()) as { items: Item[] };
    expect(list.items).toHaveLength(2);

    const ndjson = await exported(owner, `${EVERY_TYPE_MODEL.key}/records/export?format=ndjson&expand=customer`);
    expect(ndjson.response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(ndjson.response.headers.get('content-disposition')).toBe('attachment; filename="invoice.ndjson"');
    expect(ndjsonLines(ndjson.text)).toEqual(list.items);

    const plain = (await (await owner.get(`/models/${EVERY_TYPE_MODEL.key}/records?limit=100`)).json()) as { items: Item[] };
    const csv = await exported(owner, `${EVERY_TYPE_MODEL.key}/records/export`);
    expect(csv.response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.response.headers.get('content-disposition')).toBe('attachment; filename="invoice.csv"');
    const keys = ['title', ...EVERY_TYPE_FIELDS.map((field) => field.key)];
    const [header, ...rows] = csvRows(csv.text);
    expect(header).toEqual(['id', ...keys, 'createdAt', 'updatedAt']);
    expect(rows).toEqual(plain.items.map((item) => [item.id, ...keys.map((key) => documentedCell(item.data[key])), item.createdAt, item.updatedAt]));
    // The formula's value is there, and a negative number is no formula.
    const full = rows.find((row) => row[1].startsWith('Full'))!;
    expect(full[keys.indexOf('doubled') + 1]).toBe('85');
    expect(full[keys.indexOf('quantity') + 1]).toBe('-3');
    expect(full[keys.indexOf('labels') + 1]).toBe('["urgent","vip"]');
    expect(full[keys.indexOf('sent_at') + 1]).toBe('2030-01-05T10:30:00.000Z');
  });

  it('takes the list filter, sort, q and fields, and writes the same records in the same order', async () => {
    const data = [
      ['Harbour crane', 5, 'open'],
      ['Car park', 2, 'done'],
      ['Garden', 9, 'open'],
      ['Park bench', 1, 'open'],
      ['Cargo bike', 7, 'open'],
    ] as const;
    const created = await owner.post('/models/tasks/records', { records: data.map(([title, amount, status]) => ({ data: { title, amount, status } })) });
    expect(created.status).toBe(201);
    const query = `filter=${encodeURIComponent(JSON.stringify({ field: 'status', op: 'eq', value: 'open' }))}&sort=-amount&q=AR&fields=title,amount`;
    const list = (await (await owner.get(`/models/tasks/records?limit=100&${query}`)).json()) as { items: Item[] };
    expect(list.items.map((item) => item.title)).toEqual(['Garden', 'Cargo bike', 'Harbour crane', 'Park bench']);

    expect(ndjsonLines((await exported(owner, `tasks/records/export?format=ndjson&${query}`)).text)).toEqual(list.items);
    const [header, ...rows] = csvRows((await exported(owner, `tasks/records/export?format=csv&${query}`)).text);
    expect(header).toEqual(['id', 'title', 'amount', 'createdAt', 'updatedAt']);
    expect(rows).toEqual(list.items.map((item) => [item.id, item.title, String(item.data['amount']), item.createdAt, item.updatedAt]));
  });

  it('leaves out the records the key may not read, exactly as the list does', async () => {
    const financeRoleId = (
      await org.rpc<{ id: string }>('rbac.roles.create', { key: 'finance', name: 'Finance', permissions: ['records.read', 'data-models.read', 'api-keys.manage'] })
    ).id;
    const secret = (await (await owner.post('/models/tasks/records', { data: { title: 'Secret salary review' } })).json()) as Item;
    await org.rpc('records.setAccess', { id: secret.id, roleIds: [financeRoleId] });

    const readerList = (await (await reader.get('/models/tasks/records?limit=100')).json()) as { items: Item[] };
    const readerExport = ndjsonLines((await exported(reader, 'tasks/records/export?format=ndjson')).text) as Item[];
    expect(readerExport).toEqual(readerList.items);
    expect(readerExport.map((item) => item.id)).not.toContain(secret.id);
    expect((await exported(reader, 'tasks/records/export?format=csv&q=salary')).text).toBe('id,title,status,amount,notes,createdAt,updatedAt\r\n');
    const financeMember = await org.addMember(['finance'], 'accountant');
    const finance = publicApi(api, (await org.createKey({ name: 'Finance' }, financeMember.session)).token);
    const financeExport = ndjsonLines((await exported(finance, 'tasks/records/export?format=ndjson&q=salary')).text) as Item[];
    expect(financeExport.map((item) => item.id)).toEqual([secret.id]);
  });

  it('prefixes text a spreadsheet would run as a formula, in CSV only', async () => {
    const texts = ['=HYPERLINK("https://evil.example","x")', '+1+1', '-2+3', '@SUM(A1)', '\tTabbed', '\rReturned', 'plain = fine'];
    const records = texts.map((notes, index) => ({ data: { title: `Formula ${index}`, notes, score: 1, quantity: -index } }));
    const created = await owner.post(`/models/${EVERY_TYPE_MODEL.key}/records`, { records });
    if (created.status !== 201) throw new Error(await created.text());
    const query = `q=Formula&sort=title&fields=title,notes,quantity`;
    const rows = csvRows((await exported(owner, `${EVERY_TYPE_MODEL.key}/records/export?${query}`)).text).slice(1);
    expect(rows.map((row) => row[2])).toEqual(["'=HYPERLINK(\"https://evil.example\",\"x\")", "'+1+1", "'-2+3", "'@SUM(A1)", "'\tTabbed", "'\rReturned", 'plain = fine']);
    expect(rows.map((row) => row[3])).toEqual(['0', '-1', '-2', '-3', '-4', '-5', '-6']);
    const lines = ndjsonLines((await exported(owner, `${EVERY_TYPE_MODEL.key}/records/export?format=ndjson&${query}`)).text) as Item[];
    expect(lines.map((item) => item.data['notes'])).toEqual(texts);
  });

  it('answers a bad request before the first byte as an ordinary error', async () => {
    await expectError(await owner.get(`/models/tasks/records/export?filter=${encodeURIComponent('{"field":"nope","op":"eq","value":1}')}`), 400, 'validation_failed');
    await expectError(await owner.get('/models/tasks/records/export?format=xlsx'), 400, 'validation_failed');
    await expectError(await owner.get('/models/tasks/records/export?fields=title,nope'), 400, 'validation_failed');
    await expectError(await owner.get('/models/tasks/records/export?expand=title'), 400, 'validation_failed');
    await expectError(await owner.get('/models/tasks/records/export?limit=5'), 400, 'validation_failed');
    await expectError(await owner.get('/models/nothing_here/records/export'), 404, 'not_found');
  });

  it('needs records.read, and /rpc refuses to run it', async () => {
    const modelsOnly = publicApi(api, (await org.createKey({ name: 'Models only', fullAccess: false, permissions: ['data-models.read'] })).token);
    await expectError(await modelsOnly.get('/models/tasks/records/export'), 403, 'forbidden');
    const viaRpc = await api.rpc<{ error: { code: string; message: string } }>('records.export', { model: 'tasks' }, { token: org.owner.session, organizationId: org.organizationId });
    expect(viaRpc.status).toBe(400);
    expect(viaRpc.body.error.message).toContain('REST');
  });

  it("serves the web application's session too (the console downloads through this route), with X-Organization-Id as on /rpc", async () => {
    const path = '/api/v1/models/tasks/records/export?format=ndjson&sort=title';
    const bySession = await api.request(path, { token: org.owner.session, organizationId: org.organizationId });
    expect(bySession.status).toBe(200);
    const byKey = await owner.get('/models/tasks/records/export?format=ndjson&sort=title');
    expect(ndjsonLines(await bySession.text())).toEqual(ndjsonLines(await byKey.text()));
    await expectError(await api.request(path, { token: org.owner.session }), 400, 'bad_request');
    const stranger = await sessionToken(newHuman('stranger'));
    // A non-member is told the organization does not exist for them, as on /rpc.
    await expectError(await api.request(path, { token: stranger, organizationId: org.organizationId }), 404, 'not_found');
    // Only the export: the other routes take keys alone.
    await expectError(await api.request('/api/v1/models/tasks/records', { token: org.owner.session, organizationId: org.organizationId }), 401, 'unauthorized');
  });

  describe('with more than one page', () => {
    const BULK = 1001;
    beforeAll(async () => {
      await org.rpc('dataModels.create', { key: 'bulk', name: 'Bulk' });
      for (const size of [1000, BULK - 1000]) {
        const records = Array.from({ length: size }, (_, index) => ({ data: { title: `Row ${size}-${index}` } }));
        expect((await owner.post('/models/bulk/records', { records })).status).toBe(201);
      }
    }, 60_000);

    it('answers HEAD with the headers alone, reading no page past the first', async () => {
      let secondPageRead = false;
      const restore = beforeShareCall(api, org, 2, async () => {
        secondPageRead = true;
      });
      const head = await api.request('/api/v1/models/bulk/records/export?format=csv', { method: 'HEAD', token: org.key.token });
      restore();
      expect(head.status).toBe(200);
      expect(head.headers.get('content-disposition')).toBe('attachment; filename="bulk.csv"');
      expect(await head.text()).toBe('');
      expect(secondPageRead).toBe(false);
    });

    it('streams every record across pages', async () => {
      expect(csvRows((await exported(owner, 'bulk/records/export')).text)).toHaveLength(BULK + 1);
      expect(ndjsonLines((await exported(owner, 'bulk/records/export?format=ndjson')).text)).toHaveLength(BULK);
    });

    it.each([
      ['csv', (text: string) => text.split('\r\n').at(-2), /^#error,service_unavailable,/],
      ['ndjson', (text: string) => text.split('\n').at(-2), /^\{"error":\{"code":"service_unavailable","message":"[^"]+","requestId":"[^"]+"\}\}$/],
    ] as const)('ends a %s export that fails after its first byte with an error line', async (format, lastLine, marker) => {
      // The second page finds the organization's one place taken past its wait (100 ms): the share refuses it.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      beforeShareCall(api, org, 2, async () => {
        void api.runtime.organizationShare.run(org.organizationId, () => held);
      });
      const response = await api.request(`/api/v1/models/bulk/records/export?format=${format}`, { token: org.key.token });
      const text = await response.text();
      release();
      expect(response.status).toBe(200);
      expect(lastLine(text)).toMatch(marker);
      const written = format === 'csv' ? csvRows(text).length - 2 : ndjsonLines(text).length - 1;
      expect(written).toBe(1000);
      expect(response.headers.get('x-request-id')).toBeTruthy();
      await waitFor('the share to be free', async () => running(api, org) === 0);
    });

    it('stops reading when the client goes away mid-export: the running statement is cancelled and the pool stays healthy', async () => {
      const locker = new Client({ connectionString: api.database.directUrl });
      await locker.connect();
      const blockedPages = () =>
        queryDatabase<{ pid: number }>(api, "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FROM records r%'");
      try {
        // The second page's statement waits for this lock: the client leaves while it does.
        beforeShareCall(api, org, 2, async () => {
          await locker.query('BEGIN');
          await locker.query('LOCK TABLE records IN ACCESS EXCLUSIVE MODE');
        });
        const url = new URL(`${api.url}/api/v1/models/bulk/records/export?format=ndjson`);
        const request = httpRequest(url, { headers: { Authorization: `Bearer ${org.key.token}` } });
        const response = await new Promise<IncomingMessage>((resolve, reject) => request.on('response', resolve).on('error', reject).end());
        expect(response.statusCode).toBe(200);
        await new Promise((resolve) => response.once('data', resolve));
        await waitFor('the second page to wait for the lock', async () => (await blockedPages()).length === 1);

        request.destroy();
        await waitFor('the waiting statement to be cancelled', async () => (await blockedPages()).length === 0);
        await waitFor('the share to be free', async () => running(api, org) === 0);
      } finally {
        await locker.query('ROLLBACK').catch(() => undefined);
        await locker.end();
      }
      // The pool lost only the cancelled connection: a whole export still works.
      expect(ndjsonLines((await exported(owner, 'bulk/records/export?format=ndjson')).text)).toHaveLength(BULK);
    });
  });
});
