import type { ModelCatalog } from '@mrp/data-models';

type CatalogModel = ModelCatalog['models'][number];
type CatalogField = CatalogModel['fields'][number];

export const DATA_PROMPT = {
  name: 'work_with_data',
  title: "Work with this organization's data",
  description: "How to read and change this organization's records: its models, the tools, and the filter language with examples from its own fields",
};

/** One filter leaf that fits a field's type, with a value taken from its own configuration when it has one. */
function leafFor(field: CatalogField): Record<string, unknown> | undefined {
  const options = Array.isArray(field.config['options']) ? (field.config['options'] as Array<{ value?: unknown }>) : [];
  switch (field.type) {
    case 'SELECT':
      return options[0] ? { field: field.key, op: 'eq', value: options[0].value } : undefined;
    case 'MULTI_SELECT':
      return options[0] ? { field: field.key, op: 'contains', value: options[0].value } : undefined;
    case 'NUMBER':
      return { field: field.key, op: 'gte', value: 10 };
    case 'DATE':
      return { field: field.key, op: 'lt', value: '2030-01-01' };
    case 'DATETIME':
      return { field: field.key, op: 'gte', value: '2026-01-01T00:00:00Z' };
    case 'BOOLEAN':
      return { field: field.key, op: 'eq', value: true };
    case 'TEXT':
    case 'LONG_TEXT':
    case 'EMAIL':
    case 'URL':
      return { field: field.key, op: 'contains', value: 'example' };
    case 'RELATION':
      return { field: field.key, op: 'isNotEmpty' };
    default:
      return undefined;
  }
}

function examplesFor(model: CatalogModel): string[] {
  const leaves = model.fields.map(leafFor).filter((leaf): leaf is Record<string, unknown> => leaf !== undefined);
  const examples = leaves.slice(0, 2).map((leaf) => `list_records {"model":"${model.key}","filter":${JSON.stringify(leaf)}}`);
  if (leaves.length >= 2) {
    examples.push(`list_records {"model":"${model.key}","filter":${JSON.stringify({ and: leaves.slice(0, 2) })},"sort":"-updatedAt","limit":50}`);
  }
  examples.push(`search_records {"model":"${model.key}","q":"report"}`);
  return examples;
}

/** The prompt's text, written from the organization's own catalog (what the caller may read of it). */
export function dataPromptText(catalog: ModelCatalog): string {
  const models = catalog.models.map(
    (model) => `- ${model.key} (${model.name}): ${model.fields.map((field) => `${field.key} ${field.type}`).join(', ')}`,
  );
  const example = catalog.models.find((model) => model.fields.some((field) => leafFor(field) !== undefined)) ?? catalog.models[0];
  return [
    "You work with this organization's data through its tools. Every call acts with the permissions of the API key in use.",
    '',
    'Models (tables) and their fields:',
    ...(models.length > 0 ? models : ['- (none yet)']),
    '',
    'Tools: list_models and describe_model show what exists (describe_model gives the JSON Schema of a record\'s data). ' +
      'list_records and search_records read one page (at most 100 records); pass nextCursor back as cursor for the next page. ' +
      'get_record reads one record. create_records (1 to 100), update_record and delete_record (soft: the record goes to the trash) change data; ' +
      'give them an idempotencyKey (a UUID) so that a retry never writes twice. A call that would touch more than 100 records is refused: page instead.',
    '',
    'The filter language: a leaf {"field": <field key, or title, id, createdAt, updatedAt>, "op": <operator>, "value": <value>}, ' +
      'combined with {"and": [...]}, {"or": [...]} and {"not": {...}}; at most 100 nodes, depth 8. Operators: eq, neq, lt, lte, gt, gte, ' +
      'contains, startsWith, in, notIn (value is a list), isEmpty, isNotEmpty (no value); each only for field types where it makes sense.',
    ...(example ? ['', 'Examples from these models:', ...examplesFor(example).map((line) => `- ${line}`)] : []),
    '',
    'sort takes up to 3 comma-separated keys (createdAt, updatedAt, title or a field key), - for descending. fields limits the data keys answered; ' +
      'expand (RELATION field keys) answers each related record as {id, title}. A record you may not read is reported as not found.',
  ].join('\n');
}
