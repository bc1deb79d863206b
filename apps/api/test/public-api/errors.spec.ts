import { Agent, request } from 'node:http';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, expectError, publicApi, type OrganizationWithKey, type PublicApiClient } from '../support/public-api-fixtures';

/** CONTRACT "Errors" + DESIGN 6: every failure is `{ error: { code, message, details? } }` with the matching status. */
describe('/api/v1 errors', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let client: PublicApiClient;
  let records: string;
  let recordId: string;
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api);
    client = publicApi(api, org.key.token);
    records = `/models/${org.modelKey}/records`;
    const created = await client.post(records, { data: { title: 'Existing', status: 'open' } });
    recordId = ((await created.json()) as { id: string }).id;
  });
  afterAll(() => api.close());

  const sendRaw = (method: string, path: string, body: string, contentType?: string) => client.raw(method, path, body, contentType);

  describe('400: malformed or invalid request', () => {
    it('malformed JSON is bad_request', async () => {
      const error = await expectError(await sendRaw('POST', records, '{"data": {"title": ', 'application/json'), 400, 'bad_request');
      expect(error.message).toMatch(/^Malformed JSON body/);
      await expectError(await sendRaw('PATCH', `/records/${recordId}`, '{data: 1}', 'application/json'), 400, 'bad_request');
    });

    it('a body that is not { data: object } is validation_failed with details', async () => {
      for (const body of [{ data: 'text' }, { data: [1, 2] }, {}, [], 'just a string', null]) {
        const error = await expectError(await client.post(records, body), 400, 'validation_failed');
        expect(error.details?.length).toBeGreaterThan(0);
      }
      const empty = await expectError(await sendRaw('POST', records, '', 'application/json'), 400, 'validation_failed');
      expect(empty.details).toEqual([expect.objectContaining({ field: 'data', code: 'required' })]);
    });

    it('values that break the field rules are validation_failed naming each field', async () => {
      const error = await expectError(await client.post(records, { data: { title: 'x', status: 'maybe', amount: 'lots' } }), 400, 'validation_failed');
      expect(error.details).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: 'status', code: 'invalid_option' }),
          expect.objectContaining({ field: 'amount', code: 'invalid_type' }),
        ]),
      );
      const missingTitle = await expectError(await client.post(records, { data: { status: 'open' } }), 400, 'validation_failed');
      expect(missingTitle.details).toEqual([expect.objectContaining({ field: 'title', code: 'required' })]);
    });

    it('unknown keys in the body or in data are refused, not ignored', async () => {
      const extraBodyKey = await expectError(await client.post(records, { data: { title: 'x' }, priority: 1 }), 400, 'validation_failed');
      expect(JSON.stringify(extraBodyKey.details)).toContain('priority');
      const unknownField = await expectError(await client.patch(`/records/${recordId}`, { data: { colour: 'red' } }), 400, 'validation_failed');
      expect(unknownField.details).toEqual([expect.objectContaining({ field: 'colour', code: 'unknown_field' })]);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=101', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['foo=1', 'foo'],
      ['limit=1&limit=2', 'limit'],
    ])('query %s is validation_failed naming %s', async (query, name) => {
      const error = await expectError(await client.get(`${records}?${query}`), 400, 'validation_failed');
      expect(JSON.stringify(error)).toContain(name);
    });

    it.each([
      ['sort=nope', 'bad_request'],
      ['sort=createdAt,nope', 'bad_request'],
      ['sort=title,createdAt,amount,status', 'bad_request'],
      ['sort=title,-title', 'bad_request'],
      ['sort=', 'validation_failed'],
    ])('query %s is a 400 %s', async (query, code) => {
      await expectError(await client.get(`${records}?${query}`), 400, code);
    });

    it.each([
      ['not JSON', '{not json'],
      ['not a filter tree', '[]'],
      ['an unknown field', JSON.stringify({ field: 'nope', op: 'eq', value: 1 })],
      ['an operator the field type lacks', JSON.stringify({ field: 'status', op: 'gt', value: 'open' })],
      ['a value of the wrong type', JSON.stringify({ field: 'amount', op: 'eq', value: 'ten' })],
    ])('a filter that is %s is validation_failed', async (_what, filter) => {
      await expectError(await client.get(`${records}?filter=${encodeURIComponent(filter)}`), 400, 'validation_failed');
    });

    it('DELETE accepts only hard=true|false', async () => {
      await expectError(await client.delete(`/records/${recordId}?hard=yes`), 400, 'validation_failed');
      await expectError(await client.delete(`/records/${recordId}?force=true`), 400, 'validation_failed');
      expect((await client.get(`/records/${recordId}`)).status).toBe(200);
    });

    it('query parameters are refused on routes that take none', async () => {
      await expectError(await client.get('/me?verbose=1'), 400, 'validation_failed');
      await expectError(await client.get(`/models?fields=title`), 400, 'validation_failed');
    });
  });

  describe('400: a filter tree over the limits (at most 100 nodes, depth at most 8)', () => {
    /** `{ field: 'title', op: 'eq', value }`: one node at depth 1. */
    const titleIs = (value: string) => ({ field: 'title', op: 'eq', value });
    /** `node` wrapped in `levels` groups: not twice (which keeps the meaning), and, or, repeated. */
    const nested = (levels: number, node: object): object => {
      for (let level = 0; level < levels; level++) {
        const kind = ['not', 'not', 'and', 'or'][level % 4];
        node = kind === 'not' ? { not: node } : { [kind]: [node] };
      }
      return node;
    };
    /** An `or` group of `conditions` conditions, the first matching the existing record: conditions + 1 nodes. */
    const wide = (conditions: number) => ({
      or: [titleIs('Existing'), ...Array.from({ length: conditions - 1 }, (_, i) => titleIs(`absent ${i}`))],
    });
    const countNodes = (node: unknown): number => {
      const group = node as { and?: unknown[]; or?: unknown[]; not?: unknown };
      if (group.and) return 1 + group.and.reduce<number>((sum, child) => sum + countNodes(child), 0);
      if (group.or) return 1 + group.or.reduce<number>((sum, child) => sum + countNodes(child), 0);
      if (group.not) return 1 + countNodes(group.not);
      return 1;
    };
    const depthOf = (node: unknown): number => {
      const group = node as { and?: unknown[]; or?: unknown[]; not?: unknown };
      const children = group.and ?? group.or ?? (group.not ? [group.not] : []);
      return 1 + Math.max(0, ...children.map(depthOf));
    };
    const list = (filter: object) => client.get(`${records}?filter=${encodeURIComponent(JSON.stringify(filter))}`);

    it('exactly 100 nodes is accepted and filters', async () => {
      const filter = wide(99);
      expect(countNodes(filter)).toBe(100);
      const response = await list(filter);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { items: Array<{ id: string }> }).items.map((item) => item.id)).toEqual([recordId]);
    });

    it('101 nodes is 400 validation_failed', async () => {
      const filter = wide(100);
      expect(countNodes(filter)).toBe(101);
      const error = await expectError(await list(filter), 400, 'validation_failed');
      expect(error.details).toEqual([{ field: 'filter', code: 'out_of_range', message: 'A filter may have at most 100 nodes.' }]);
    });

    it('depth 8 is accepted and filters', async () => {
      const filter = nested(7, titleIs('Existing'));
      expect(depthOf(filter)).toBe(8);
      const response = await list(filter);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { items: Array<{ id: string }> }).items.map((item) => item.id)).toEqual([recordId]);
    });

    it('depth 9 is 400 validation_failed', async () => {
      const filter = nested(8, titleIs('Existing'));
      expect(depthOf(filter)).toBe(9);
      const error = await expectError(await list(filter), 400, 'validation_failed');
      expect(error.details).toEqual([
        { field: expect.stringMatching(/^filter\./), code: 'out_of_range', message: 'A filter may be nested at most 8 levels deep.' },
      ]);
    });

    it('100 nodes at depth 8 together are accepted', async () => {
      const filter = nested(6, wide(93));
      expect({ nodes: countNodes(filter), depth: depthOf(filter) }).toEqual({ nodes: 100, depth: 8 });
      const response = await list(filter);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { items: Array<{ id: string }> }).items.map((item) => item.id)).toEqual([recordId]);
    });
  });

  describe('400: writes the model does not allow', () => {
    beforeAll(async () => {
      await org.rpc('dataModels.create', { key: 'invoices', name: 'Invoices' });
      await org.rpc('dataModels.fields.create', { model: 'invoices', key: 'amount', name: 'Amount', type: 'NUMBER', config: { precision: 2 } });
      await org.rpc('dataModels.fields.create', {
        model: 'invoices',
        key: 'doubled',
        name: 'Doubled',
        type: 'FORMULA',
        config: { expression: '{amount} * 2', resultType: 'NUMBER' },
      });
    });

    it('a value for a FORMULA field is validation_failed with read_only, on POST and PATCH, and nothing is written', async () => {
      const created = await client.post('/models/invoices/records', { data: { title: 'Computed', amount: 2 } });
      expect(created.status).toBe(201);
      const invoice = (await created.json()) as { id: string; data: Record<string, unknown> };
      expect(invoice.data).toEqual({ title: 'Computed', amount: 2, doubled: 4 });

      const post = await expectError(await client.post('/models/invoices/records', { data: { title: 'Forged', amount: 2, doubled: 5 } }), 400, 'validation_failed');
      expect(post.details).toEqual([{ field: 'doubled', code: 'read_only', message: '"doubled" is a formula field and is computed.' }]);
      const patch = await expectError(await client.patch(`/records/${invoice.id}`, { data: { doubled: 5 } }), 400, 'validation_failed');
      expect(patch.details).toEqual([{ field: 'doubled', code: 'read_only', message: '"doubled" is a formula field and is computed.' }]);

      const page = (await (await client.get('/models/invoices/records')).json()) as { items: Array<{ title: string; data: Record<string, unknown> }> };
      expect(page.items.map((item) => [item.title, item.data.doubled])).toEqual([['Computed', 4]]);
    });

    it('a data key the model lacks is validation_failed with unknown_field on POST', async () => {
      const error = await expectError(await client.post('/models/invoices/records', { data: { title: 'Odd', colour: 'red' } }), 400, 'validation_failed');
      expect(error.details).toEqual([{ field: 'colour', code: 'unknown_field', message: 'Unknown field "colour".' }]);
      const page = (await (await client.get('/models/invoices/records')).json()) as { items: Array<{ title: string }> };
      expect(page.items.map((item) => item.title)).toEqual(['Computed']);
    });
  });

  describe('401: key missing or invalid', () => {
    it('is unauthorized with WWW-Authenticate: Bearer', async () => {
      const response = await publicApi(api, undefined).get(records);
      await expectError(response, 401, 'unauthorized');
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    });
  });

  describe('403: the key lacks the permission', () => {
    it('is forbidden, naming the permission', async () => {
      const key = await org.createKey({ name: 'models only', fullAccess: false, permissions: ['data-models.read'] });
      const error = await expectError(await publicApi(api, key.token).get(records), 403, 'forbidden');
      expect(error.message).toContain('records.read');
    });
  });

  describe('404: absent, or hidden from the caller', () => {
    it('an unknown model is not_found on every model route', async () => {
      await expectError(await client.get('/models/nope'), 404, 'not_found');
      await expectError(await client.get('/models/nope/fields'), 404, 'not_found');
      await expectError(await client.get('/models/nope/records'), 404, 'not_found');
      await expectError(await client.post('/models/nope/records', { data: { title: 'x' } }), 404, 'not_found');
    });

    it('an unknown record id (well-formed or not) is not_found on GET, PATCH and DELETE', async () => {
      for (const id of ['01900000-0000-7000-8000-000000000000', 'not-a-uuid']) {
        await expectError(await client.get(`/records/${id}`), 404, 'not_found');
        await expectError(await client.patch(`/records/${id}`, { data: { title: 'x' } }), 404, 'not_found');
        await expectError(await client.delete(`/records/${id}`), 404, 'not_found');
      }
    });

    it("another organization's record id is not_found", async () => {
      const other = await createOrganizationWithKey(api);
      const created = await publicApi(api, other.key.token).post(`/models/${other.modelKey}/records`, { data: { title: 'Theirs' } });
      const theirs = ((await created.json()) as { id: string }).id;
      await expectError(await client.get(`/records/${theirs}`), 404, 'not_found');
      await expectError(await client.patch(`/records/${theirs}`, { data: { title: 'Mine now' } }), 404, 'not_found');
      await expectError(await client.delete(`/records/${theirs}?hard=true`), 404, 'not_found');
      const untouched = (await (await publicApi(api, other.key.token).get(`/records/${theirs}`)).json()) as { title: string };
      expect(untouched.title).toBe('Theirs');
    });

    it('a record restricted (records.setAccess) to roles the caller lacks is not_found, never forbidden', async () => {
      const created = await client.post(records, { data: { title: 'Owners only' } });
      const restricted = ((await created.json()) as { id: string }).id;
      const roles = await org.rpc<{ items: Array<{ id: string; key: string }> }>('rbac.roles.list', {});
      const ownerRole = roles.items.find((role) => role.key === 'owner')!;
      await org.rpc('records.setAccess', { id: restricted, roleIds: [ownerRole.id] });

      const member = await org.addMember(['member'], 'outsider');
      const memberClient = publicApi(api, (await org.createKey({ name: 'member' }, member.session)).token);
      await expectError(await memberClient.get(`/records/${restricted}`), 404, 'not_found');
      await expectError(await memberClient.patch(`/records/${restricted}`, { data: { title: 'x' } }), 404, 'not_found');
      await expectError(await memberClient.delete(`/records/${restricted}`), 404, 'not_found');
      const page = (await (await memberClient.get(`${records}?limit=100`)).json()) as { items: Array<{ id: string }> };
      expect(page.items.map((item) => item.id)).not.toContain(restricted);
      expect(page.items.map((item) => item.id)).toContain(recordId);

      expect((await client.get(`/records/${restricted}`)).status).toBe(200);
    });

    it('an unknown /api/v1 path is not_found', async () => {
      await expectError(await client.get('/nothing-here'), 404, 'not_found');
    });
  });

  /** One request over a node:http agent, so the test controls connection reuse and chunked bodies. */
  function sendOver(agent: Agent, path: string, method: string, chunks: string[] = []): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { Authorization: `Bearer ${org.key.token}` };
      if (chunks.length > 0) headers['Content-Type'] = 'application/json';
      const outgoing = request(`${api.url}/api/v1${path}`, { method, headers, agent }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      outgoing.on('error', reject);
      outgoing.setTimeout(3000, () => outgoing.destroy(new Error(`${method} ${path} got no answer within 3 s`)));
      for (const chunk of chunks) outgoing.write(chunk);
      outgoing.end();
    });
  }

  describe('413: body over 1 MiB', () => {
    it('is payload_too_large and writes nothing', async () => {
      const body = JSON.stringify({ data: { title: 'big', notes: 'x'.repeat(1024 * 1024) } });
      await expectError(await sendRaw('POST', records, body, 'application/json'), 413, 'payload_too_large');
      await expectError(await sendRaw('PATCH', `/records/${recordId}`, body, 'application/json'), 413, 'payload_too_large');
      const page = (await (await client.get(`${records}?filter=${encodeURIComponent(JSON.stringify({ field: 'title', op: 'eq', value: 'big' }))}`)).json()) as {
        items: unknown[];
      };
      expect(page.items).toEqual([]);
    });

    it('a chunked body (no Content-Length) over 1 MiB is 413 too, and does not hang the connection it came on', async () => {
      // One kept-alive socket: the next request must not queue behind an unread body.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const chunks = ['{"data":{"title":"big","notes":"', ...Array.from({ length: 12 }, () => 'x'.repeat(100_000)), '"}}'];
        const tooLarge = await sendOver(agent, records, 'POST', chunks);
        expect(tooLarge.status).toBe(413);
        expect(JSON.parse(tooLarge.body)).toEqual({ error: { code: 'payload_too_large', message: expect.any(String), requestId: expect.any(String) } });
        const next = await sendOver(agent, '/me', 'GET');
        expect(next.status).toBe(200);
      } finally {
        agent.destroy();
      }
    });
  });

  describe('415: POST or PATCH without a JSON content type', () => {
    it('is unsupported_media_type', async () => {
      const json = JSON.stringify({ data: { title: 'typed wrong' } });
      await expectError(await sendRaw('POST', records, json, 'text/plain'), 415, 'unsupported_media_type');
      await expectError(await sendRaw('POST', records, 'title=x', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
      await expectError(await sendRaw('PATCH', `/records/${recordId}`, json, 'text/plain'), 415, 'unsupported_media_type');
      await expectError(await sendRaw('POST', records, ''), 415, 'unsupported_media_type');
    });
  });

  describe('429: over the rate limit', () => {
    it('is rate_limited with Retry-After', async () => {
      // A second api process on the same database whose bucket holds a single request.
      const strict = await startTestApi({ PUBLIC_API_BURST: '1', PUBLIC_API_RATE_PER_SECOND: '0.1' }, { database: api.database });
      try {
        const key = await org.createKey({ name: 'throttled' });
        expect((await publicApi(strict, key.token).get('/me')).status).toBe(200);
        const response = await publicApi(strict, key.token).get('/me');
        const error = await expectError(response, 429, 'rate_limited');
        expect(error.message).toMatch(/rate limit/i);
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      } finally {
        await strict.close();
      }
    });
  });
});
