import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { FieldDefinition } from '../core/field-definition';
import type { FieldType } from '../core/field-types';
import { FIELD_TYPES } from '../core/field-types';
import { recordDataSchema } from './record-data-schema';
import { validateRecordData, type WriteMode } from './validate-record-data';

const field = (key: string, type: FieldType, config: Record<string, unknown> = {}, extra: Partial<FieldDefinition> = {}): FieldDefinition => ({
  key,
  type,
  config,
  required: false,
  ...extra,
});

/** One field of every type, with configurations that narrow the schema. */
const FIELDS: FieldDefinition[] = [
  field('title', 'TEXT', { maxLength: 20 }, { required: true }),
  field('notes', 'LONG_TEXT', { maxLength: 50 }),
  field('body', 'RICH_TEXT'),
  field('score', 'NUMBER', { min: 0, max: 10 }, { required: true }),
  field('count', 'NUMBER', { precision: 0 }),
  field('active', 'BOOLEAN'),
  field('due_on', 'DATE'),
  field('starts_at', 'DATETIME'),
  field('status', 'SELECT', { options: [{ value: 'open', label: 'Open' }, { value: 'done' }] }),
  field('tags', 'MULTI_SELECT', { options: [{ value: 'red' }, { value: 'blue' }, { value: 'green' }], maxSelected: 2 }),
  field('owner', 'RELATION', { targetModel: 'people' }),
  field('watchers', 'RELATION', { targetModel: 'people', multiple: true }),
  field('site', 'URL'),
  field('contact', 'EMAIL'),
  field('doubled', 'FORMULA', { expression: '{score} * 2', resultType: 'NUMBER' }),
  field('contract', 'FILE', { allowedMimeTypes: ['application/pdf'] }),
  field('photos', 'ATTACHMENTS', { maxFiles: 2, maxSizeBytes: 1000 }),
  field('legacy', 'TEXT', {}, { archivedAt: '2024-01-01T00:00:00.000Z' }),
];

const UUID = '0190aaaa-0000-7000-8000-000000000001';
const VALID_RECORD = {
  title: 'Widget',
  notes: 'two\nlines',
  body: '<p>Hi</p>',
  score: 7.5,
  count: 3,
  active: true,
  due_on: '2024-02-29',
  starts_at: '2024-01-01T10:00:00+02:00',
  status: 'open',
  tags: ['red', 'blue'],
  owner: UUID,
  watchers: [UUID],
  site: 'https://example.com/a',
  contact: 'ann@example.com',
  contract: { url: 'https://files.example.com/c.pdf', name: 'c.pdf', mimeType: 'application/pdf' },
  photos: [{ url: 'https://files.example.com/p.png', name: 'p.png', size: 10 }],
};

function compile(mode: WriteMode) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(recordDataSchema(FIELDS, mode));
}

/** Values the validator refuses for a type reason JSON Schema can state too. */
const WRONG_VALUES: Array<[key: string, value: unknown]> = [
  ['title', 'x'.repeat(21)],
  ['title', 'two\nlines'],
  ['title', ''],
  ['title', 'nul \u0000 inside'],
  ['notes', 'nul \u0000 inside'],
  ['body', '<p>nul \u0000 inside</p>'],
  ['notes', 'x'.repeat(51)],
  ['score', 'not a number'],
  ['score', 11],
  ['score', -1],
  ['count', 1.5],
  ['active', 'yes'],
  ['due_on', '2024-01-01T00:00:00Z'],
  ['starts_at', 'tomorrow'],
  ['status', 'closed'],
  ['tags', ['red', 'blue', 'green']],
  ['tags', ['red', 'red']],
  ['tags', ['purple']],
  ['owner', 'not-a-uuid'],
  ['owner', [UUID]],
  ['watchers', UUID],
  ['site', 'ftp://example.com'],
  ['contact', 'not an address'],
  ['contract', { url: 'https://files.example.com/c.pdf', name: 'c.pdf' }],
  ['contract', { url: 'https://files.example.com/c.pdf', name: 'c.pdf', mimeType: 'application/pdf', extra: 1 }],
  ['photos', [{ url: 'https://files.example.com/p.png', name: 'p.png', size: 2000 }]],
  ['photos', [{ url: 'https://files.example.com/p.png', name: 'p.png' }]],
  ['legacy', 'archived fields are unknown'],
  ['nonsense', 1],
];

describe('recordDataSchema', () => {
  it('has one property per visible field, typed by the field type and its configuration', () => {
    const schema = recordDataSchema(FIELDS, 'create') as { properties: Record<string, Record<string, unknown>> };
    expect(Object.keys(schema.properties)).toEqual(FIELDS.filter((f) => !f.archivedAt).map((f) => f.key));
    const types = new Set(FIELDS.map((f) => f.type));
    expect([...types].sort()).toEqual([...FIELD_TYPES].sort());
    expect(schema.properties['title']).toEqual({ type: 'string', maxLength: 20, pattern: expect.any(String), minLength: 1 });
    expect(schema.properties['score']).toEqual({ type: 'number', minimum: 0, maximum: 10 });
    expect(schema.properties['status']).toMatchObject({ anyOf: [{ type: 'string', enum: ['open', 'done'] }, { type: 'null' }] });
    expect(schema.properties['due_on']).toMatchObject({ anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] });
    expect(schema.properties['starts_at']).toMatchObject({ anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] });
    expect(schema.properties['contact']).toMatchObject({ anyOf: [{ type: 'string', format: 'email' }, { type: 'null' }] });
    expect(schema.properties['site']).toMatchObject({ anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] });
    expect(schema.properties['doubled']).toMatchObject({ readOnly: true, anyOf: [{ type: 'number' }, { type: 'null' }] });
  });

  it('requires the required fields on create, none on update, and never a computed one', () => {
    expect(recordDataSchema(FIELDS, 'create')['required']).toEqual(['title', 'score']);
    expect(recordDataSchema(FIELDS, 'update')['required']).toBeUndefined();
    const withRequiredFormula = [...FIELDS, field('sum', 'FORMULA', { expression: '{score}', resultType: 'NUMBER' }, { required: true })];
    expect(recordDataSchema(withRequiredFormula, 'create')['required']).toEqual(['title', 'score']);
  });

  it('adds the reserved title field when the model does not list it', () => {
    const schema = recordDataSchema([field('score', 'NUMBER')], 'create') as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties).sort()).toEqual(['score', 'title']);
    expect(schema.required).toEqual(['title']);
  });

  describe('agrees with validateRecordData', () => {
    const createSchema = compile('create');
    const updateSchema = compile('update');

    it('accepts a record the validator accepts', () => {
      expect(validateRecordData(FIELDS, VALID_RECORD, { mode: 'create' }).ok).toBe(true);
      expect(createSchema(VALID_RECORD)).toBe(true);
    });

    it.each(WRONG_VALUES)('refuses %s = %j, as the validator does', (key, value) => {
      const record = { ...VALID_RECORD, [key]: value };
      expect(validateRecordData(FIELDS, record, { mode: 'create' }).ok).toBe(false);
      expect(createSchema(record)).toBe(false);
      expect(validateRecordData(FIELDS, { [key]: value }, { mode: 'update' }).ok).toBe(false);
      expect(updateSchema({ [key]: value })).toBe(false);
    });

    it('refuses a missing required field on create only, and null for a required field on update', () => {
      const { score: _score, ...withoutScore } = VALID_RECORD;
      expect(validateRecordData(FIELDS, withoutScore, { mode: 'create' }).ok).toBe(false);
      expect(createSchema(withoutScore)).toBe(false);
      expect(updateSchema({ notes: 'x' })).toBe(true);
      expect(validateRecordData(FIELDS, { score: null }, { mode: 'update' }).ok).toBe(false);
      expect(updateSchema({ score: null })).toBe(false);
    });

    it('accepts null for a field that is not required', () => {
      expect(validateRecordData(FIELDS, { status: null, photos: null }, { mode: 'update' }).ok).toBe(true);
      expect(updateSchema({ status: null, photos: null })).toBe(true);
    });
  });
});
