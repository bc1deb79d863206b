import type { OpenAPIV3_1 } from 'openapi-types';
import { recordDataSchema, type FieldDefinition, type JsonSchema, type WriteMode } from '@mrp/field-validation';
import type { ModelCatalog } from '@mrp/data-models';
import { withExamples } from './openapi-examples';

type SchemaObject = OpenAPIV3_1.SchemaObject;
type Operation = OpenAPIV3_1.OperationObject;
type CatalogModel = ModelCatalog['models'][number];

const JSON_MEDIA = 'application/json';
const NDJSON_MEDIA = 'application/x-ndjson';
const CSV_MEDIA = 'text/csv';

/**
 * The components of one model. Model keys are immutable and hold no dot, so `<key>.<Kind>` names
 * never collide (with each other, or with the generic `Record`, `Error`, ...) and never change:
 * code generated from one document keeps compiling against the next.
 */
export function modelComponentNames(key: string) {
  return {
    data: `${key}.Data`,
    selectedData: `${key}.SelectedData`,
    patch: `${key}.Patch`,
    record: `${key}.Record`,
    deletedRecord: `${key}.DeletedRecord`,
    selectedRecord: `${key}.SelectedRecord`,
    list: `${key}.RecordList`,
    create: `${key}.Create`,
  };
}

/**
 * Text of the organization's (a model's name and description, a field's option labels or formula)
 * as CommonMark that shows it literally: OpenAPI descriptions are Markdown, which Redoc and other
 * renderers turn into HTML, so every ASCII punctuation character is backslash-escaped (CommonMark
 * lets any of them be) and no `<style>`, `<img>`, link or heading can come out of it. `title` and
 * `summary` are plain text everywhere and are left as they are.
 */
export function markdownLiteral(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** Keywords whose values are data (a field named `description` among them), never schemas. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'example', 'examples']);

/** A schema built from the model's fields with every `description` in it made literal (see markdownLiteral). */
function literalDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(literalDescriptions);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([keyword, inner]) => {
      if (keyword === 'description' && typeof inner === 'string') return [keyword, markdownLiteral(inner)];
      // Under `properties` the names are field keys, whatever they spell: each value is a schema.
      if (keyword === 'properties' && typeof inner === 'object' && inner !== null) {
        return [keyword, Object.fromEntries(Object.entries(inner).map(([field, schema]) => [field, literalDescriptions(schema)]))];
      }
      return [keyword, DATA_KEYWORDS.has(keyword) ? inner : literalDescriptions(inner)];
    }),
  );
}

const refTo = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` }) as SchemaObject;

/** The model's `data` schema from field-validation (the one rule), each property titled with the field's name. */
function dataSchema(model: CatalogModel, mode: WriteMode): SchemaObject {
  const definitions: FieldDefinition[] = model.fields.map(({ key, type, config, required }) => ({ key, type, config, required }));
  const schema = recordDataSchema(definitions, mode) as JsonSchema & { properties: Record<string, JsonSchema> };
  const byKey = new Map(model.fields.map((field) => [field.key, field]));
  for (const [key, property] of Object.entries(schema.properties)) {
    const field = byKey.get(key);
    schema.properties[key] = {
      title: field?.name ?? key,
      ...(literalDescriptions(property) as JsonSchema),
      // An example id names no record the server would find: the example leaves the relation empty.
      ...(field?.type === 'RELATION' && !field.required ? { examples: [null] } : {}),
    };
  }
  const name = markdownLiteral(model.name);
  const what =
    mode === 'create'
      ? `The data of a record of the ${name} model`
      : `Changes to a record of the ${name} model: given keys only; null clears a field that is not required`;
  return {
    title: mode === 'create' ? model.name : `${model.name} changes`,
    description: model.description ? `${what}. ${markdownLiteral(model.description)}` : what,
    ...schema,
  } as SchemaObject;
}

/**
 * A record's data as a read answers it: `fields=` selects which keys it carries, so none is
 * required (without `fields=` all of them are there).
 */
function selectedDataSchema(model: CatalogModel, data: SchemaObject): SchemaObject {
  const { required: _required, properties, ...rest } = data;
  const relations = new Map(model.fields.filter((field) => field.type === 'RELATION').map((field) => [field.key, field]));
  return {
    ...rest,
    properties: Object.fromEntries(
      Object.entries(properties ?? {}).map(([key, property]) => {
        const relation = relations.get(key);
        return [key, relation ? expandableRelation(property as SchemaObject, relation.config['multiple'] === true) : property];
      }),
    ),
    title: `${model.name} fields`,
    description: `The data of a record of the ${markdownLiteral(model.name)} model as a read answers it: the fields named by \`fields\`, every field without it`,
  };
}

/** A related record as `expand` answers it: a title only for a record the caller may read. */
const EXPANDED_RELATION: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    title: { type: 'string', description: 'Left out when the caller may not read the record, or it is deleted or missing' },
  },
  required: ['id'],
  additionalProperties: false,
};

/** A relation as a read answers it: its ids, or with `expand` naming it, objects in their place. */
function expandableRelation(property: SchemaObject, multiple: boolean): SchemaObject {
  const { title, examples, ...ids } = property as SchemaObject & { examples?: unknown[] };
  const expanded: SchemaObject = multiple
    ? { type: 'array', items: EXPANDED_RELATION, description: 'With `expand` naming this field' }
    : { ...EXPANDED_RELATION, description: 'With `expand` naming this field' };
  const alternatives = 'anyOf' in ids && Array.isArray(ids.anyOf) && Object.keys(ids).length === 1 ? ids.anyOf : [ids];
  return { ...(title === undefined ? {} : { title }), anyOf: [...alternatives, expanded], ...(examples === undefined ? {} : { examples }) } as SchemaObject;
}

/** What the generic document always holds; missing, it is a programming error (which the tests find). */
function must<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new Error(`OpenAPI: the generic document has no ${what}`);
  return value;
}

function operationAt(paths: OpenAPIV3_1.PathsObject, path: string, method: 'get' | 'post' | 'patch'): Operation {
  return must(paths[path]?.[method], `${method.toUpperCase()} ${path}`);
}

function bodyMedia(operation: Operation): OpenAPIV3_1.MediaTypeObject {
  return must((operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content[JSON_MEDIA], `request body of ${operation.operationId}`);
}

function answerMedia(operation: Operation, status: string, mediaType = JSON_MEDIA): OpenAPIV3_1.MediaTypeObject {
  const response = operation.responses?.[status] as OpenAPIV3_1.ResponseObject | undefined;
  return must(response?.content?.[mediaType], `${status} ${mediaType} answer of ${operation.operationId}`);
}

/** A copy of the generic operation with its success answer (and body) typed for one model, its example to be sampled again. */
function specialise(
  generic: Operation,
  model: CatalogModel,
  typed: { status: string; response: SchemaObject; body?: SchemaObject; mediaType?: string },
): Operation {
  const operation = structuredClone(generic);
  operation.operationId = `${model.key}.${generic.operationId}`;
  operation.summary = `${generic.summary} (${model.name})`;
  operation.tags = [model.key];
  operation.parameters = ((operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[]).filter(
    (parameter) => !(parameter.in === 'path' && parameter.name === 'key'),
  );
  const media = answerMedia(operation, typed.status, typed.mediaType);
  media.schema = typed.response;
  delete media.example;
  if (typed.body) {
    const body = bodyMedia(operation);
    body.schema = typed.body;
    delete body.example;
  }
  return operation;
}

/** Replaces `data` of an object schema (the Record, or a body) with the given schema. */
function withData(schema: SchemaObject, data: SchemaObject, overrides: Record<string, SchemaObject> = {}): SchemaObject {
  return { ...schema, properties: { ...schema.properties, ...overrides, data } };
}

/**
 * The generic document plus, for each model of the catalog, its named schemas (`<key>.Data` for a
 * record's data as written and read whole, `<key>.SelectedData` as a read with `fields` answers it,
 * `<key>.Patch` for an update, `<key>.Record`, `<key>.SelectedRecord`, `<key>.DeletedRecord` (in the trash), `<key>.RecordList`,
 * `<key>.Create`) and its own list, create, count and export operations at the concrete paths
 * `/models/<key>/records...` (which OpenAPI matches before the templated ones). `GET` and `PATCH
 * /records/{id}` answer a record of any of these models (`AnySelectedRecord`, `AnyRecord`, told
 * apart by `model`).
 * The generic document is left untouched.
 */
export function buildOrganizationDocument(generic: OpenAPIV3_1.Document, catalog: ModelCatalog): OpenAPIV3_1.Document {
  if (catalog.models.length === 0) return generic;
  const document = structuredClone(generic);
  const schemas = must(document.components?.schemas, 'component schemas');
  const paths = must(document.paths, 'paths');
  const tags = must(document.tags, 'tags');
  const listRecords = operationAt(paths, '/models/{key}/records', 'get');
  const createRecord = operationAt(paths, '/models/{key}/records', 'post');
  const getRecord = operationAt(paths, '/records/{id}', 'get');
  const updateRecord = operationAt(paths, '/records/{id}', 'patch');
  const recordSchema = must(schemas['Record'], 'Record schema');
  const deletedRecordSchema = must(schemas['DeletedRecord'], 'DeletedRecord schema');
  const recordListSchema = must(schemas['RecordList'], 'RecordList schema');
  const updateRecords = operationAt(paths, '/models/{key}/records', 'patch');
  const exportRecords = operationAt(paths, '/models/{key}/records/export', 'get');
  const countRecords = operationAt(paths, '/models/{key}/records/count', 'get');
  const recordCountSchema = answerMedia(countRecords, '200').schema as SchemaObject;
  const errorSchema = refTo('Error');
  // The create body is one record's (`data`) or a batch's (`records`).
  const [createBody, createBatchBody] = must((bodyMedia(createRecord).schema as SchemaObject).oneOf, 'oneOf of the create body') as SchemaObject[];
  const updateBatchBody = bodyMedia(updateRecords).schema as SchemaObject;
  const batchOf = (body: SchemaObject, data: SchemaObject): SchemaObject => {
    const records = must(body.properties?.['records'], 'records of a batch body') as SchemaObject & { items: SchemaObject };
    return { ...body, properties: { ...body.properties, records: { ...records, items: withData(records.items, data) } } };
  };

  for (const model of catalog.models) {
    const names = modelComponentNames(model.key);
    schemas[names.data] = dataSchema(model, 'create');
    schemas[names.selectedData] = selectedDataSchema(model, schemas[names.data]);
    schemas[names.patch] = dataSchema(model, 'update');
    const modelProperty = { model: { type: 'string', const: model.key, description: 'The model key' } } as const;
    schemas[names.record] = { ...withData(recordSchema, refTo(names.data), modelProperty), title: `${model.name} record` };
    schemas[names.selectedRecord] = {
      ...withData(recordSchema, refTo(names.selectedData), modelProperty),
      title: `${model.name} record, selected fields`,
    };
    schemas[names.deletedRecord] = {
      ...withData(deletedRecordSchema, refTo(names.selectedData), modelProperty),
      title: `Deleted ${model.name} record`,
    };
    schemas[names.list] = {
      ...recordListSchema,
      title: `${model.name} records`,
      // Live records, or the trash's with deleted=only.
      properties: { ...recordListSchema.properties, items: { type: 'array', items: { anyOf: [refTo(names.selectedRecord), refTo(names.deletedRecord)] } } },
    };
    schemas[names.create] = { ...withData(createBody, refTo(names.data)), title: `New ${model.name} record` };
    const recordBatch: SchemaObject = {
      type: 'object',
      title: `${model.name} records`,
      properties: { items: { type: 'array', items: refTo(names.record) } },
      required: ['items'],
    };
    paths[`/models/${model.key}/records`] = {
      get: specialise(listRecords, model, { status: '200', response: refTo(names.list) }),
      post: specialise(createRecord, model, {
        status: '201',
        response: { oneOf: [refTo(names.record), recordBatch] },
        body: { oneOf: [refTo(names.create), { ...batchOf(createBatchBody, refTo(names.data)), title: `New ${model.name} records` }] },
      }),
      patch: specialise(updateRecords, model, {
        status: '200',
        response: recordBatch,
        body: { ...batchOf(updateBatchBody, refTo(names.patch)), title: `Changes to ${model.name} records` },
      }),
    } as OpenAPIV3_1.PathItemObject;
    const exported = specialise(exportRecords, model, {
      status: '200',
      mediaType: NDJSON_MEDIA,
      response: { description: `Each line one ${markdownLiteral(model.name)} record; the last one perhaps an error`, anyOf: [refTo(names.selectedRecord), errorSchema] },
    });
    const csv = answerMedia(exported, '200', CSV_MEDIA);
    csv.schema = { ...csv.schema, description: `${(csv.schema as SchemaObject).description ?? ''}. Without \`fields\`, the columns are: ${['id', ...model.fields.map((field) => field.key), 'createdAt', 'updatedAt'].join(', ')}` };
    paths[`/models/${model.key}/records/export`] = { get: exported } as OpenAPIV3_1.PathItemObject;
    paths[`/models/${model.key}/records/count`] = {
      get: specialise(countRecords, model, { status: '200', response: recordCountSchema }),
    } as OpenAPIV3_1.PathItemObject;
    tags.push({
      name: model.key,
      description: model.description ? `${markdownLiteral(model.name)}: ${markdownLiteral(model.description)}` : `Records of the ${markdownLiteral(model.name)} model`,
      'x-displayName': model.name,
    } as OpenAPIV3_1.TagObject);
  }

  const anyOf = (description: string, kind: 'record' | 'selectedRecord'): SchemaObject => ({
    description,
    oneOf: catalog.models.map((model) => refTo(modelComponentNames(model.key)[kind])),
    discriminator: {
      propertyName: 'model',
      mapping: Object.fromEntries(catalog.models.map((model) => [model.key, `#/components/schemas/${modelComponentNames(model.key)[kind]}`])),
    },
  });
  schemas['AnyRecord'] = anyOf('A record of any model the key may read; `model` tells which', 'record');
  schemas['AnySelectedRecord'] = anyOf('A record of any model the key may read, with the fields `fields` selects; `model` tells which', 'selectedRecord');
  for (const [operation, schema] of [
    [getRecord, 'AnySelectedRecord'],
    [updateRecord, 'AnyRecord'],
  ] as const) {
    const media = answerMedia(operation, '200');
    media.schema = refTo(schema);
    delete media.example;
  }
  const patchBody = bodyMedia(updateRecord);
  patchBody.schema = withData(patchBody.schema as SchemaObject, {
    description: "Changes to the record's data, by the record's model",
    anyOf: catalog.models.map((model) => refTo(modelComponentNames(model.key).patch)),
  });
  delete patchBody.example;
  return withExamples(document);
}
