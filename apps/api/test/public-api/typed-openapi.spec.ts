import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, expectError, type OrganizationWithKey } from '../support/public-api-fixtures';
import { EVERY_TYPE_FIELDS, createEveryTypeModel } from '../support/every-field-type';

type Document = OpenAPIV3_1.Document;
type Schema = OpenAPIV3_1.SchemaObject & Record<string, unknown>;

const JSON_MEDIA = 'application/json';

async function documentOf(response: Response): Promise<Document> {
  expect(response.status).toBe(200);
  return (await response.json()) as Document;
}

const schemasOf = (document: Document) => (document.components?.schemas ?? {}) as Record<string, Schema>;
const propertiesOf = (schema: Schema) => (schema.properties ?? {}) as Record<string, Schema>;

function requestSchema(operation: OpenAPIV3_1.OperationObject | undefined): unknown {
  return (operation?.requestBody as OpenAPIV3_1.RequestBodyObject).content[JSON_MEDIA].schema;
}

function answer(operation: OpenAPIV3_1.OperationObject | undefined, status: string): OpenAPIV3_1.MediaTypeObject {
  return (operation?.responses?.[status] as OpenAPIV3_1.ResponseObject).content![JSON_MEDIA];
}

/** The typed, per-organization OpenAPI document: what a key sees at /api/v1/openapi.json. */
describe('GET /api/v1/openapi.json with an API key', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let generic: Document;
  let typed: Document;
  const fetchDocument = (token?: string) => api.request('/api/v1/openapi.json', { token });

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api, { name: 'Typed Inc' });
    await createEveryTypeModel(org);
    generic = await documentOf(await fetchDocument());
    typed = await documentOf(await fetchDocument(org.key.token));
  });
  afterAll(() => api.close());

  describe('without a key', () => {
    it('is the generic document, whatever models exist, and says it varies by Authorization', async () => {
      const response = await fetchDocument();
      expect(response.headers.get('vary')).toMatch(/Authorization/);
      expect(Object.keys(schemasOf(generic)).filter((name) => name.includes('.'))).toEqual([]);
      expect(Object.keys(generic.paths ?? {})).not.toContain('/models/invoice/records');
      expect(schemasOf(generic)['AnyRecord']).toBeUndefined();
    });
  });

  describe('with a valid key', () => {
    it('is a valid OpenAPI 3.1 document holding everything the generic one holds', async () => {
      await expect(SwaggerParser.validate(structuredClone(typed) as never)).resolves.toBeDefined();
      for (const path of Object.keys(generic.paths ?? {})) expect(Object.keys(typed.paths ?? {})).toContain(path);
      for (const name of Object.keys(schemasOf(generic))) expect(schemasOf(typed)[name]).toEqual(schemasOf(generic)[name]);
    });

    it("names one data schema per model of the key's organization, each field typed by its type and configuration", () => {
      const data = schemasOf(typed)['invoice.Data'];
      expect(data).toMatchObject({ type: 'object', title: 'Invoice', additionalProperties: false, required: ['title', 'score'] });
      const properties = propertiesOf(data);
      expect(Object.keys(properties)).toEqual(['title', ...EVERY_TYPE_FIELDS.map((field) => field.key)]);
      expect(properties['title']).toMatchObject({ title: 'Title', type: 'string', maxLength: 1000 });
      expect(properties['score']).toMatchObject({ title: 'Score', type: 'number', minimum: 0, maximum: 100 });
      expect(properties['notes']).toMatchObject({ anyOf: [{ type: 'string', maxLength: 5000 }, { type: 'null' }] });
      expect(properties['quantity']).toMatchObject({ anyOf: [{ type: 'integer' }, { type: 'null' }] });
      expect(properties['paid']).toMatchObject({ anyOf: [{ type: 'boolean' }, { type: 'null' }] });
      expect(properties['due_on']).toMatchObject({ anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] });
      expect(properties['sent_at']).toMatchObject({ anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] });
      expect(properties['status']).toMatchObject({ anyOf: [{ type: 'string', enum: ['draft', 'sent'] }, { type: 'null' }] });
      expect(properties['labels']).toMatchObject({
        anyOf: [{ type: 'array', items: { enum: ['urgent', 'vip'] }, uniqueItems: true, maxItems: 2 }, { type: 'null' }],
      });
      expect(properties['customer']).toMatchObject({ anyOf: [{ type: 'string', format: 'uuid', 'x-target-model': 'tasks' }, { type: 'null' }] });
      expect(properties['website']).toMatchObject({ anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] });
      expect(properties['contact']).toMatchObject({ anyOf: [{ type: 'string', format: 'email' }, { type: 'null' }] });
      expect(properties['doubled']).toMatchObject({ readOnly: true, anyOf: [{ type: 'number' }, { type: 'null' }] });
      expect(properties['contract']).toMatchObject({ anyOf: [{ type: 'object', required: ['url', 'name', 'mimeType'] }, { type: 'null' }] });
      expect(properties['photos']).toMatchObject({ anyOf: [{ type: 'array', maxItems: 3 }, { type: 'null' }] });
      expect(schemasOf(typed)['tasks.Data']).toMatchObject({ required: ['title'], properties: { status: { anyOf: [{ enum: ['open', 'done'] }, { type: 'null' }] } } });
    });

    it('types a record, a page of records, a create body and a patch per model', () => {
      const schemas = schemasOf(typed);
      expect(propertiesOf(schemas['invoice.Record'])).toMatchObject({
        model: { const: 'invoice' },
        data: { $ref: '#/components/schemas/invoice.Data' },
        id: { format: 'uuid' },
      });
      expect(propertiesOf(schemas['invoice.RecordList'])['items']).toEqual({
        type: 'array',
        items: { anyOf: [{ $ref: '#/components/schemas/invoice.SelectedRecord' }, { $ref: '#/components/schemas/invoice.DeletedRecord' }] },
      });
      // The trash (deleted=only) lists deleted records: when and by whom each was deleted.
      expect(schemas['invoice.DeletedRecord']).toMatchObject({
        required: expect.arrayContaining(['deletedAt', 'deletedBy']),
        properties: { model: { const: 'invoice' }, data: { $ref: '#/components/schemas/invoice.SelectedData' }, deletedAt: { format: 'date-time' } },
      });
      // A read with `fields=` answers only the fields it names: no field of its data is required.
      expect(propertiesOf(schemas['invoice.SelectedRecord'])['data']).toEqual({ $ref: '#/components/schemas/invoice.SelectedData' });
      expect(schemas['invoice.SelectedData']).not.toHaveProperty('required');
      expect(Object.keys(propertiesOf(schemas['invoice.SelectedData']))).toEqual(Object.keys(propertiesOf(schemas['invoice.Data'])));
      expect(schemas['invoice.Create']).toMatchObject({ required: ['data'], properties: { data: { $ref: '#/components/schemas/invoice.Data' } } });
      expect(schemas['invoice.Patch']['required']).toBeUndefined();
      expect(propertiesOf(schemas['invoice.Patch'])['score']).toEqual(propertiesOf(schemas['invoice.Data'])['score']);
    });

    it('gives each model its own list and create operations at /models/<key>/records, typed', () => {
      const item = typed.paths?.['/models/invoice/records'];
      expect(item?.post?.operationId).toBe('invoice.createRecord');
      expect(item?.get?.operationId).toBe('invoice.listRecords');
      // One record (`data`), or a batch (`records`, each with the model's data): both typed.
      expect(requestSchema(item?.post)).toMatchObject({
        oneOf: [
          { $ref: '#/components/schemas/invoice.Create' },
          { required: ['records'], properties: { records: { items: { properties: { data: { $ref: '#/components/schemas/invoice.Data' } } } } } },
        ],
      });
      expect(answer(item?.post, '201').schema).toMatchObject({
        oneOf: [{ $ref: '#/components/schemas/invoice.Record' }, { properties: { items: { items: { $ref: '#/components/schemas/invoice.Record' } } } }],
      });
      expect(item?.patch?.operationId).toBe('invoice.updateRecords');
      expect(requestSchema(item?.patch)).toMatchObject({
        properties: { records: { items: { properties: { data: { $ref: '#/components/schemas/invoice.Patch' } } } } },
      });
      expect(answer(item?.patch, '200').schema).toMatchObject({ properties: { items: { items: { $ref: '#/components/schemas/invoice.Record' } } } });
      expect(answer(item?.get, '200').schema).toEqual({ $ref: '#/components/schemas/invoice.RecordList' });
      expect(((item?.get?.parameters ?? []) as OpenAPIV3_1.ParameterObject[]).map((parameter) => parameter.name).sort()).toEqual([
        'cursor',
        'deleted',
        'expand',
        'fields',
        'filter',
        'limit',
        'q',
        'sort',
      ]);
      expect(item?.post?.['x-required-permission' as never]).toBe('records.create');
      expect(typed.tags).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'invoice', description: expect.stringContaining('Bills sent') })]));
    });

    it('answers GET and PATCH /records/{id} with a record of any model, told apart by model', () => {
      const anyRecord = schemasOf(typed)['AnyRecord'];
      expect(anyRecord).toMatchObject({
        oneOf: [{ $ref: '#/components/schemas/invoice.Record' }, { $ref: '#/components/schemas/tasks.Record' }],
        discriminator: { propertyName: 'model', mapping: { invoice: '#/components/schemas/invoice.Record', tasks: '#/components/schemas/tasks.Record' } },
      });
      const byId = typed.paths?.['/records/{id}'];
      expect(answer(byId?.get, '200').schema).toEqual({ $ref: '#/components/schemas/AnySelectedRecord' });
      expect(answer(byId?.patch, '200').schema).toEqual({ $ref: '#/components/schemas/AnyRecord' });
      expect(requestSchema(byId?.patch)).toMatchObject({
        properties: { data: { anyOf: [{ $ref: '#/components/schemas/invoice.Patch' }, { $ref: '#/components/schemas/tasks.Patch' }] } },
      });
    });

    it('has an example for every request and answer, and a typed create example the API accepts', async () => {
      for (const [path, item] of Object.entries(typed.paths ?? {})) {
        for (const [method, operation] of Object.entries(item ?? {}) as Array<[string, OpenAPIV3_1.OperationObject]>) {
          if (operation.requestBody) expect({ path, method, example: (operation.requestBody as OpenAPIV3_1.RequestBodyObject).content[JSON_MEDIA].example }).toEqual({ path, method, example: expect.anything() });
          const success = (operation.responses?.['200'] ?? operation.responses?.['201']) as OpenAPIV3_1.ResponseObject;
          // JSON, or an export's CSV and NDJSON.
          expect(Object.keys(success.content ?? {}).length).toBeGreaterThan(0);
          for (const [media, content] of Object.entries(success.content ?? {})) {
            expect({ path, method, media, example: content.example }).toEqual({ path, method, media, example: expect.anything() });
          }
        }
      }
      const createExample = (typed.paths?.['/models/tasks/records']?.post?.requestBody as OpenAPIV3_1.RequestBodyObject).content[JSON_MEDIA].example;
      const created = await api.request('/api/v1/models/tasks/records', { token: org.key.token, json: createExample });
      expect(created.status).toBe(201);
      const invoiceExample = (typed.paths?.['/models/invoice/records']?.post?.requestBody as OpenAPIV3_1.RequestBodyObject).content[JSON_MEDIA].example as {
        data: Record<string, unknown>;
      };
      // A read-only (computed) field is never in a request example.
      expect(Object.keys(invoiceExample.data)).not.toContain('doubled');
    });

    it('follows model and field changes at once', async () => {
      await org.rpc('dataModels.fields.create', { model: 'invoice', key: 'priority', name: 'Priority', type: 'SELECT', config: { options: [{ value: 'high' }, { value: 'low' }] } });
      await org.rpc('dataModels.create', { key: 'vendors', name: 'Vendors' });
      const after = await documentOf(await fetchDocument(org.key.token));
      expect(propertiesOf(schemasOf(after)['invoice.Data'])['priority']).toMatchObject({ anyOf: [{ enum: ['high', 'low'] }, { type: 'null' }] });
      expect(Object.keys(after.paths ?? {})).toContain('/models/vendors/records');
      await org.rpc('dataModels.archive', { key: 'vendors' });
      const archived = await documentOf(await fetchDocument(org.key.token));
      expect(Object.keys(archived.paths ?? {})).not.toContain('/models/vendors/records');
      expect(schemasOf(archived)['vendors.Data']).toBeUndefined();
    });

    it("shows only the key's own organization", async () => {
      const other = await createOrganizationWithKey(api, { name: 'Other Inc', modelKey: 'projects' });
      const theirs = await documentOf(await fetchDocument(other.key.token));
      expect(Object.keys(schemasOf(theirs)).filter((name) => name.endsWith('.Data'))).toEqual(['projects.Data']);
    });

    it("shows a model's name and description, and its fields' labels, as literal text, never as Markdown or HTML", async () => {
      const hostile = await createOrganizationWithKey(api, { name: 'Hostile Inc', modelKey: 'notes' });
      const name = '<b>Loud</b> [home](https://evil.example)';
      const description = '<style>body{display:none}</style><img src=x onerror=alert(1)> <a href="https://evil.example">click</a>\n# Heading';
      await hostile.rpc('dataModels.create', { key: 'hostile', name, description });
      await hostile.rpc('dataModels.fields.create', {
        model: 'hostile',
        key: 'kind',
        name: '<i>Kind</i>',
        type: 'SELECT',
        config: { options: [{ value: 'a', label: '<img src=y>' }] },
      });
      const document = await documentOf(await fetchDocument(hostile.key.token));
      const data = schemasOf(document)['hostile.Data'];
      const texts = [
        document.tags?.find((tag) => tag.name === 'hostile')?.description,
        data.description,
        schemasOf(document)['hostile.Patch'].description,
        // An optional SELECT: its options, or null.
        (propertiesOf(data)['kind'].anyOf as Schema[])[0].description,
      ];
      // CommonMark: a backslash before ASCII punctuation makes it that character, literally.
      const shown = (text: string | undefined) => (text ?? '').replace(/\\([!-/:-@[-`{-~])/g, '$1');
      expect(shown(texts[0])).toBe(`${name}: ${description}`);
      expect(shown(texts[1])).toBe(`The data of a record of the ${name} model. ${description}`);
      expect(shown(texts[2])).toContain(`Changes to a record of the ${name} model`);
      expect(shown(texts[3])).toBe('a: <img src=y>');
      for (const text of texts) expect(text).not.toMatch(/(^|[^\\])[<>[\]()#&`*_]/);
      // Titles and summaries are plain text: as given.
      expect(data.title).toBe(name);
      expect(propertiesOf(data)['kind'].title).toBe('<i>Kind</i>');
      expect(document.paths?.['/models/hostile/records']?.post?.summary).toBe(`Create a record, or a batch of records (${name})`);
    });

    it('is counted against the key like any call (rate-limit headers)', async () => {
      const response = await fetchDocument(org.key.token);
      expect(response.headers.get('x-ratelimit-limit')).toBe('1000');
      expect(response.headers.get('vary')).toMatch(/Authorization/);
      expect(response.headers.get('cache-control')).toBe('private, no-cache');
    });
  });

  describe('authority', () => {
    it('is the generic document for a key that may not read models (data-models.read)', async () => {
      const limited = await org.createKey({ fullAccess: false, permissions: ['records.read'] });
      expect(await documentOf(await fetchDocument(limited.token))).toEqual(generic);
    });

    it("is typed for a read-only member's key, and generic for their key limited to no model permission", async () => {
      const reader = await org.addMember(['read-only']);
      const key = await org.createKey({ name: 'reader' }, reader.session);
      expect(Object.keys(schemasOf(await documentOf(await fetchDocument(key.token))))).toContain('invoice.Data');
      const narrowed = await org.createKey({ name: 'no models', fullAccess: false, permissions: ['api-keys.manage'] }, reader.session);
      expect(await documentOf(await fetchDocument(narrowed.token))).toEqual(generic);
    });
  });

  describe('with a key that is not valid', () => {
    it('is a 401, never a silent fallback to the generic document', async () => {
      const unknown = await fetchDocument(`mrk_${'A'.repeat(43)}`);
      await expectError(unknown, 401, 'unauthorized');
      expect(unknown.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const revoked = await org.createKey({ name: 'short-lived' });
      await org.rpc('apiKeys.revoke', { id: revoked.id });
      await expectError(await fetchDocument(revoked.token), 401, 'unauthorized');
      await expectError(await api.request('/api/v1/openapi.json', { headers: { Authorization: 'Basic abc' } }), 401, 'unauthorized');
    });
  });

  it('refuses a query parameter, with or without a key: a key never travels in the URL', async () => {
    await expectError(await api.request('/api/v1/openapi.json?key=mrk_x'), 400, 'validation_failed');
    await expectError(await api.request('/api/v1/openapi.json?x=1', { token: org.key.token }), 400, 'validation_failed');
  });
});
