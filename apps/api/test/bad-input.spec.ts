import { SignJWT } from 'jose';
import { TEST_JWT_SECRET, startTestApi, type TestApi } from './support/test-api';
import {
  createOrganizationWithKey,
  expectError,
  publicApi,
  queryDatabase,
  type OrganizationWithKey,
  type PublicApiClient,
} from './support/public-api-fixtures';

interface RecordBody {
  id: string;
  data: Record<string, unknown>;
}

/** A model with a field of every writable type, and one whose fields are all required. */
const THINGS_FIELDS = [
  { key: 'won', type: 'BOOLEAN' },
  { key: 'note', type: 'TEXT' },
  { key: 'long_note', type: 'LONG_TEXT' },
  { key: 'body', type: 'RICH_TEXT' },
  { key: 'site', type: 'URL' },
  { key: 'mail', type: 'EMAIL' },
  { key: 'count', type: 'NUMBER' },
  { key: 'day', type: 'DATE' },
  { key: 'at', type: 'DATETIME' },
  { key: 'stage', type: 'SELECT', config: { options: [{ value: 'new' }, { value: 'won' }] } },
  { key: 'tags', type: 'MULTI_SELECT', config: { options: [{ value: 'a' }, { value: 'b' }] } },
  { key: 'parent', type: 'RELATION', config: { targetModel: 'things' } },
  { key: 'links', type: 'RELATION', config: { targetModel: 'things', multiple: true } },
  { key: 'doc', type: 'FILE' },
  { key: 'files', type: 'ATTACHMENTS' },
] as const;

const file = (name: string) => ({ url: 'https://files.example.com/a', name });

/** DESIGN 6 and 7: bad values are a 400 naming the field, never a 500 and never silently dropped. */
describe('bad input', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let client: PublicApiClient;
  let existingId: string;

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api);
    client = publicApi(api, org.key.token);
    await org.rpc('dataModels.create', { key: 'things', name: 'Things' });
    for (const field of THINGS_FIELDS) await org.rpc('dataModels.fields.create', { model: 'things', name: field.key, ...field });
    await org.rpc('dataModels.create', { key: 'strict', name: 'Strict' });
    await org.rpc('dataModels.fields.create', { model: 'strict', key: 'won', name: 'Won', type: 'BOOLEAN', required: true });
    await org.rpc('dataModels.fields.create', { model: 'strict', key: 'tags', name: 'Tags', type: 'MULTI_SELECT', required: true, config: { options: [{ value: 'a' }] } });
    const created = await client.post('/models/things/records', { data: { title: 'Existing', won: true, note: 'kept', tags: ['a'] } });
    expect(created.status).toBe(201);
    existingId = ((await created.json()) as RecordBody).id;
  });
  afterAll(() => api.close());

  const recordCount = async () => (await queryDatabase<{ n: number }>(api, 'SELECT count(*)::int AS n FROM records'))[0].n;
  const storedData = async (id: string) => (await queryDatabase<{ data: Record<string, unknown> }>(api, 'SELECT data FROM records WHERE id = $1', [id]))[0].data;
  const rpcAsOwner = (name: string, input: unknown) =>
    api.request(`/rpc/${name}`, { method: 'POST', json: input, token: org.owner.session, organizationId: org.organizationId });

  describe('text PostgreSQL cannot store: U+0000 and lone surrogates are 400 invalid_format', () => {
    const UNSTORABLE: ReadonlyArray<readonly [string, string]> = [
      ['U+0000', 'a\u0000b'],
      ['a lone high surrogate', 'a\ud800b'],
      ['a lone low surrogate', '\udc00'],
    ];

    it('answers the issue example with a detail naming the field, and writes nothing', async () => {
      const before = await recordCount();
      const response = await client.raw('POST', '/models/things/records', '{"data":{"title":"a\\u0000b"}}', 'application/json');
      const error = await expectError(response, 400, 'validation_failed');
      expect(error.details).toEqual([{ field: 'title', code: 'invalid_format', message: expect.stringContaining('U+0000') }]);
      expect(await recordCount()).toBe(before);
    });

    it.each(UNSTORABLE)('%s in any string of a record value, nested ones included, over both doors', async (_name, text) => {
      const data = {
        title: `t ${text}`,
        note: text,
        long_note: text,
        body: `<p>${text}</p>`,
        site: `https://example.com/${text}`,
        doc: file(text),
        files: [file('fine.pdf'), file(`x${text}`)],
      };
      const expected = ['title', 'note', 'long_note', 'body', 'site', 'doc.name', 'files[1].name'];
      const before = await recordCount();
      const rest = await expectError(await client.post('/models/things/records', { data }), 400, 'validation_failed');
      expect(rest.details?.map(({ field, code }) => `${field}:${code}`)).toEqual(expected.map((field) => `${field}:invalid_format`));
      const rpc = await expectError(await rpcAsOwner('records.create', { model: 'things', data }), 400, 'validation_failed');
      expect(rpc.details).toEqual(rest.details);
      expect(await recordCount()).toBe(before);
    });

    it.each(UNSTORABLE)('%s in an update leaves the record as it was', async (_name, text) => {
      const before = await storedData(existingId);
      const error = await expectError(await client.patch(`/records/${existingId}`, { data: { note: text, mail: `${text}@example.com` } }), 400, 'validation_failed');
      expect(error.details?.map(({ field, code }) => `${field}:${code}`)).toEqual(['note:invalid_format', 'mail:invalid_format']);
      expect(await storedData(existingId)).toEqual(before);
    });

    it.each(UNSTORABLE)('%s in a key of data is refused', async (_name, text) => {
      const error = await expectError(await client.post('/models/things/records', { data: { title: 'x', [text]: 1 } }), 400, 'validation_failed');
      expect(error.details).toEqual([expect.objectContaining({ field: `data.${text}`, code: 'invalid_format' })]);
    });

    it.each(UNSTORABLE)('%s in a filter value, over REST and /rpc', async (_name, text) => {
      const filter = { or: [{ field: 'note', op: 'eq', value: 'fine' }, { field: 'title', op: 'contains', value: text }] };
      const rest = await expectError(await client.get(`/models/things/records?filter=${encodeURIComponent(JSON.stringify(filter))}`), 400, 'validation_failed');
      expect(rest.details).toEqual([expect.objectContaining({ field: 'filter.or[1].value', code: 'invalid_format' })]);
      const rpc = await expectError(await rpcAsOwner('records.list', { model: 'things', filter }), 400, 'validation_failed');
      expect(rpc.details).toEqual(rest.details);
      const list = { field: 'stage', op: 'in', value: ['new', text] };
      const inList = await expectError(await client.get(`/models/things/records?filter=${encodeURIComponent(JSON.stringify(list))}`), 400, 'validation_failed');
      expect(inList.details?.[0]?.field).toMatch(/^filter\.value\[1\]$/);
    });

    it.each(UNSTORABLE)('%s in a model name, a field name or a field configuration (text and JSONB columns)', async (_name, text) => {
      const model = await expectError(await rpcAsOwner('dataModels.create', { key: 'nulled', name: `Model ${text}` }), 400, 'validation_failed');
      expect(model.details).toEqual([expect.objectContaining({ field: 'name', code: 'invalid_format' })]);
      const update = await expectError(await rpcAsOwner('dataModels.update', { key: 'things', description: text }), 400, 'validation_failed');
      expect(update.details).toEqual([expect.objectContaining({ field: 'description', code: 'invalid_format' })]);
      const fieldName = await expectError(await rpcAsOwner('dataModels.fields.create', { model: 'things', key: 'extra', name: text, type: 'TEXT' }), 400, 'validation_failed');
      expect(fieldName.details).toEqual([expect.objectContaining({ field: 'name', code: 'invalid_format' })]);
      const option = { model: 'things', key: 'extra', name: 'Extra', type: 'SELECT', config: { options: [{ value: 'ok', label: `Label ${text}` }] } };
      const config = await expectError(await rpcAsOwner('dataModels.fields.create', option), 400, 'validation_failed');
      expect(config.details).toEqual([expect.objectContaining({ field: 'config.options[0].label', code: 'invalid_format' })]);
      const organization = await expectError(
        await api.request('/rpc/organizations.create', { method: 'POST', json: { name: `Org ${text}` }, token: org.owner.session }),
        400,
        'validation_failed',
      );
      expect(organization.details).toEqual([expect.objectContaining({ field: 'name', code: 'invalid_format' })]);
    });

    it('a formula whose string literal would produce such text is refused when the field is defined', async () => {
      for (const literal of ['"\\u0000"', '"\\ud800"']) {
        const input = { model: 'things', key: 'calc', name: 'Calc', type: 'FORMULA', config: { expression: `CONCAT({title}, ${literal})`, resultType: 'TEXT' } };
        const error = await expectError(await rpcAsOwner('dataModels.fields.create', input), 400, 'validation_failed');
        expect(error.details).toEqual([expect.objectContaining({ field: 'config.expression', code: 'invalid_format' })]);
      }
    });

    it('in query parameters and path identifiers', async () => {
      const nul = encodeURIComponent('a\u0000b');
      for (const [path, field] of [
        [`/models/things/records?cursor=${nul}`, 'cursor'],
        [`/models/things/records?sort=${nul}`, 'sort'],
        [`/records/${nul}`, 'id'],
        [`/models/${nul}`, 'key'],
        [`/models/${nul}/fields`, 'model'],
        [`/models/${nul}/records`, 'model'],
      ]) {
        const error = await expectError(await client.get(path), 400, 'validation_failed');
        expect(error.details).toEqual([expect.objectContaining({ field, code: 'invalid_format' })]);
      }
      // A filter parameter that is not JSON at all stays a syntax error.
      const raw = await expectError(await client.get('/models/things/records?filter=%00'), 400, 'validation_failed');
      expect(raw.details).toEqual([expect.objectContaining({ field: 'filter', code: 'invalid_format' })]);
      // Percent-encoded bytes that are not UTF-8 cannot spell a lone surrogate: they name nothing.
      await expectError(await client.get('/models/a%ED%A0%80b'), 404, 'not_found');
      await expectError(await client.delete(`/records/${nul}?hard=true`), 400, 'validation_failed');
    });

    it.each(UNSTORABLE)('%s in a session claim is a 401, and no account is created', async (_name, text) => {
      const sign = (claims: Record<string, unknown>, sub: string) =>
        new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(TEST_JWT_SECRET));
      for (const claims of [{ email: `a${text}@example.com` }, { email: `${crypto.randomUUID()}@example.com`, name: `Name ${text}` }]) {
        const sub = crypto.randomUUID();
        const response = await api.request('/rpc/me.get', { method: 'POST', json: {}, token: await sign(claims, sub) });
        await expectError(response, 401, 'unauthorized');
        expect(await queryDatabase(api, 'SELECT 1 FROM users WHERE id = $1', [sub])).toEqual([]);
      }
    });

    it('well-formed text, astral characters and escaped lookalikes are stored and returned exactly', async () => {
      const data = { title: '😀 \ud83d\ude00 𝄞', note: '\\u0000 ␀ \u0001', long_note: 'line\nbreak', files: [file('日本語.pdf')] };
      const response = await client.post('/models/things/records', { data });
      expect(response.status).toBe(201);
      const created = (await response.json()) as RecordBody;
      expect(created.data).toEqual(data);
      expect(await storedData(created.id)).toEqual(data);
      const read = (await (await client.get(`/records/${created.id}`)).json()) as RecordBody;
      expect(read.data).toEqual(data);
    });
  });

  describe('emptiness: only null clears; "" only for free text, [] only for lists', () => {
    it.each([
      ['[] on a BOOLEAN', { won: [] }, 'won'],
      ['"" on a BOOLEAN', { won: '' }, 'won'],
      ['"" on a NUMBER', { count: '' }, 'count'],
      ['"" on a DATE', { day: '' }, 'day'],
      ['"" on a DATETIME', { at: '' }, 'at'],
      ['"" on a SELECT', { stage: '' }, 'stage'],
      ['"" on a single RELATION', { parent: '' }, 'parent'],
      ['[] on a single RELATION', { parent: [] }, 'parent'],
      ['"" on a FILE', { doc: '' }, 'doc'],
      ['[] on a TEXT', { note: [] }, 'note'],
      ['"" on a MULTI_SELECT', { tags: '' }, 'tags'],
      ['"" on ATTACHMENTS', { files: '' }, 'files'],
    ])('%s is invalid_type on create and update, over both doors, and nothing changes', async (_name, values, field) => {
      const before = await recordCount();
      const storedBefore = await storedData(existingId);
      const expected = [expect.objectContaining({ field, code: 'invalid_type', message: expect.stringContaining('send null to clear') })];
      const create = await expectError(await client.post('/models/things/records', { data: { title: 'x', ...values } }), 400, 'validation_failed');
      expect(create.details).toEqual(expected);
      const update = await expectError(await client.patch(`/records/${existingId}`, { data: values }), 400, 'validation_failed');
      expect(update.details).toEqual(expected);
      const rpcCreate = await expectError(await rpcAsOwner('records.create', { model: 'things', data: { title: 'x', ...values } }), 400, 'validation_failed');
      expect(rpcCreate.details).toEqual(expected);
      const rpcUpdate = await expectError(await rpcAsOwner('records.update', { id: existingId, data: values }), 400, 'validation_failed');
      expect(rpcUpdate.details).toEqual(expected);
      expect(await recordCount()).toBe(before);
      expect(await storedData(existingId)).toEqual(storedBefore);
    });

    it('null clears any optional field; "" clears free text; [] clears lists', async () => {
      const full = { title: 'Full', won: false, note: 'n', site: 'https://example.com', tags: ['a'], links: [existingId], files: [file('f.pdf')], count: 0 };
      const created = (await (await client.post('/models/things/records', { data: full })).json()) as RecordBody;
      expect(created.data).toEqual(full);
      const patched = await client.patch(`/records/${created.id}`, { data: { won: null, note: '', site: '', tags: [], links: [], files: [], count: null } });
      expect(patched.status).toBe(200);
      expect(((await patched.json()) as RecordBody).data).toEqual({ title: 'Full' });
      expect(await storedData(created.id)).toEqual({ title: 'Full' });
    });

    it('required: present and non-empty on create, never cleared on update', async () => {
      const create = (data: Record<string, unknown>) => client.post('/models/strict/records', { data });
      const codes = async (response: Response) =>
        (await expectError(response, 400, 'validation_failed')).details?.map(({ field, code }) => `${field}:${code}`);
      expect(await codes(await create({ title: 'x' }))).toEqual(['won:required', 'tags:required']);
      expect(await codes(await create({ title: '', won: null, tags: [] }))).toEqual(['title:required', 'won:required', 'tags:required']);
      expect(await codes(await create({ title: 'x', won: '', tags: '' }))).toEqual(['won:invalid_type', 'tags:invalid_type']);
      const created = await create({ title: 'x', won: false, tags: ['a'] });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as RecordBody;
      const update = (data: Record<string, unknown>) => client.patch(`/records/${id}`, { data });
      expect(await codes(await update({ title: '', won: null, tags: [] }))).toEqual(['title:required', 'won:required', 'tags:required']);
      expect(await codes(await update({ title: null, won: [], tags: '' }))).toEqual(['title:required', 'won:invalid_type', 'tags:invalid_type']);
      expect((await update({ won: true })).status).toBe(200);
      expect(await storedData(id)).toEqual({ title: 'x', won: true, tags: ['a'] });
    });
  });
});
