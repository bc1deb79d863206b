import fc from 'fast-check';
import type { Principal } from '@mrp/platform';
import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import { csvRecord } from './export-csv';
import { textPages } from './export-pages';
import { csvLines } from './export-lines';
import { listedRecords } from './listed-records';
import type { RecordExport } from './export-procedure';
import type { RecordListOutput, RecordOutput } from './schemas';

/** One field of each type, and a second relation holding lists of ids. */
const FIELDS = [
  { key: 'text', type: 'TEXT' },
  { key: 'long_text', type: 'LONG_TEXT' },
  { key: 'rich', type: 'RICH_TEXT' },
  { key: 'amount', type: 'NUMBER' },
  { key: 'paid', type: 'BOOLEAN' },
  { key: 'due_on', type: 'DATE' },
  { key: 'sent_at', type: 'DATETIME' },
  { key: 'status', type: 'SELECT', config: { options: [{ value: 'open' }] } },
  { key: 'labels', type: 'MULTI_SELECT', config: { options: [{ value: 'a' }] } },
  { key: 'owner', type: 'RELATION', config: { targetModel: 'people' } },
  { key: 'helpers', type: 'RELATION', config: { targetModel: 'people', multiple: true } },
  { key: 'website', type: 'URL' },
  { key: 'contact', type: 'EMAIL' },
  { key: 'doubled', type: 'FORMULA', config: { expression: '{amount} * 2', resultType: 'NUMBER' } },
  { key: 'contract', type: 'FILE' },
  { key: 'photos', type: 'ATTACHMENTS' },
  // A key every object inherits: a record without it must show nothing for it.
  { key: 'constructor', type: 'RELATION', config: { targetModel: 'people' } },
  // Archived once the records hold values for it: shown by neither the list nor the export.
  { key: 'retired', type: 'TEXT' },
] as const;

/** RFC 4180 text read back into rows of cells: a reader of its own, not the export's writer. */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (quoted) {
      if (char === '"' && text[at + 1] === '"') {
        cell += '"';
        at++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[at + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      at++;
    } else cell += char;
  }
  expect(cell).toBe('');
  expect(row).toEqual([]);
  return rows;
}

const FORMULA = /^[=+\-@\t\r]/;
const guarded = (text: string) => (FORMULA.test(text) ? `'${text}` : text);
const isRelated = (value: unknown): value is { id: string; title?: unknown } =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { id?: unknown }).id === 'string';

/** A cell as docs/integrating.md describes it, for a value of the list's item. */
function documentedCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return guarded(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isRelated(value)) return documentedCell(value.title ?? value.id);
  if (Array.isArray(value) && value.length > 0 && value.every(isRelated)) return JSON.stringify(value.map((related) => related.title ?? related.id));
  return guarded(JSON.stringify(value));
}

const RECORDS = 400;

/** PostgreSQL's jsonb holds no U+0000 and no lone surrogate; everything else JSON can say stays. */
function storable(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll(String.fromCharCode(0), '?').replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '?');
  if (Array.isArray(value)) return value.map(storable);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [storable(key), storable(item)]));
  return value;
}

/**
 * An export's lines are, byte for byte, what the API writes for the list's items of the same
 * input: csvRecord, and JSON.stringify of each item, its relations expanded. The records are
 * written straight into the table with values of every JSON shape, whatever the field types
 * allow, so the page's reading of a row (its data as jsonb's text, its titles' column) is held
 * to the list's, branch by branch.
 */
describe('export lines', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  let admin: Principal;
  let member: Principal;

  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization(['finance']);
    admin = env.principal(org, { roles: ['admin'] });
    member = env.principal(org, { roles: ['member'] });
    await env.call('dataModels.create', { key: 'people', name: 'People' }, admin);
    await env.call('dataModels.create', { key: 'things', name: 'Things' }, admin);
    for (const field of FIELDS) await env.call('dataModels.fields.create', { model: 'things', name: field.key, ...field }, admin);
    const people: string[] = [];
    for (const title of ['Ada', '=cmd|x', 'Quote "q", comma', 'Restricted', 'Deleted']) {
      people.push((await env.call<RecordOutput>('records.create', { model: 'people', data: { title } }, admin)).id);
    }
    await env.call('records.setAccess', { id: people[3], roleIds: [org.roles.finance] }, admin);
    await env.call('records.delete', { id: people[4] }, admin);
    const missing = '00000000-0000-4000-8000-000000000000';
    const relatedId = fc.constantFrom(...people, missing, people[0].toUpperCase());

    const [{ id: modelId }] = await env.sql<{ id: string }>('SELECT id FROM data_models WHERE organization_id = ? AND key = ?', [org.id, 'things']);
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('=SUM(A1)', '+1', '-1', '@x', '\tx', '\rx', 'a,b', 'say "hi"', 'two\nlines', 'cr\rhere', '', ' ', "'", '😀', '\u0001\u001f\u007f', '\u2028'),
      // Text a number, list or object would be written as: the line tells them apart by the value's JSON type.
      fc.constantFrom('12', '1.0', '-0', '-5', '0100', '1e3', '[1]', '{"a":1}', '[', '{', 'true', 'false', 'null', '2030-01-01', '9f0c7a52-0000-4000-8000-000000000000'),
    );
    const number = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.constantFrom(0, -0, 1e21, 1e-7, 1.5e-5, 0.00001, 1e15, 123456789012345.6, 1234567890123456.8, 2 ** 53 + 2, 5e-324, 1.7976931348623157e308, -1e-10, 0.1 + 0.2),
    );
    const related = fc.oneof(
      relatedId,
      fc.array(relatedId, { maxLength: 4 }),
      fc.record({ id: relatedId, title: fc.oneof(text, number, fc.constant(null)) }, { requiredKeys: ['id'] }),
      fc.array(fc.record({ id: relatedId, title: text }, { requiredKeys: ['id'] }), { maxLength: 3 }),
    );
    const value = fc.oneof(text, number, fc.boolean(), fc.constant(null), related, fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.constantFrom('0', '10', '2', '4294967295', 'a', 'id', 'title', '__proto__'), fc.jsonValue({ maxDepth: 1 })));
    const data = fc.dictionary(fc.constantFrom('title', ...FIELDS.map((field) => field.key), 'not_a_field'), value);
    const samples = fc.sample(fc.tuple(fc.oneof(text, fc.constant('Thing')), data), { numRuns: RECORDS, seed: 25 });
    for (const [index, [title, values]] of samples.entries()) {
      await env.sql(
        `INSERT INTO records (id, organization_id, model_id, title, data, created_at, updated_at, created_by, updated_by)
         VALUES (gen_random_uuid(), ?, ?, ?, ?::jsonb, timestamptz '2030-01-01' + ? * interval '1 ms', now(), 'seed', 'seed')`,
        [org.id, modelId, storable(title), JSON.stringify(storable(values)), index],
      );
    }
    // What JSON cannot say, stored as jsonb can hold it: numbers past a double, a line longer than a piece of the export.
    const long = `${'😀 é "q", '.repeat(20_000)}end`;
    await env.sql(
      `INSERT INTO records (id, organization_id, model_id, title, data, created_at, updated_at, created_by, updated_by)
       VALUES (gen_random_uuid(), ?, ?, 'Huge', ?::jsonb, timestamptz '2029-12-31', now(), 'seed', 'seed')`,
      [org.id, modelId, `{"amount": 1e400, "doubled": -12345678901234567890123, "text": ${JSON.stringify(long)}, "retired": "kept in data"}`],
    );
    await env.call('dataModels.fields.archive', { model: 'things', key: 'retired' }, admin);
  }, 120_000);
  afterAll(() => env.close());

  const exported = async (input: Record<string, unknown>, principal: Principal) => {
    const output = await env.call<RecordExport>('records.export', { model: 'things', ...input }, principal);
    let text = '';
    for await (const page of output.pages) text += Buffer.concat(page).toString();
    return { output, text };
  };

  /** Every item records.list answers for the same input, page after page. */
  const listed = async (input: Record<string, unknown>, principal: Principal) => {
    const items: RecordOutput[] = [];
    let cursor: string | undefined;
    do {
      const page = await env.call<RecordListOutput>('records.list', { model: 'things', ...input, limit: 100, ...(cursor ? { cursor } : {}) }, principal);
      items.push(...(page.items as RecordOutput[]));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return items;
  };

  it.each([
    ['every field', {}],
    ['expanded relations', { expand: 'owner,helpers' }],
    ['a selection, sorted by a text field', { fields: 'photos,title,owner,amount', sort: 'text,-createdAt', expand: 'owner' }],
    ['a search', { q: 'a', sort: 'title' }],
  ])('writes CSV and NDJSON as the API writes its items: %s', async (_, input) => {
    for (const principal of [admin, member]) {
      const items = await listed(input, principal);
      expect(items.length).toBeGreaterThan('q' in input ? 10 : RECORDS - 1);
      const csv = await exported({ ...input, format: 'csv' }, principal);
      expect(csv.text).toBe(items.map((item) => csvRecord(item, csv.output.columns)).join(''));
      expect(csv.output.columns).not.toContain('retired');
      expect(csvRows(csv.text)).toEqual(
        items.map((item) => [
          item.id,
          ...csv.output.columns.map((key) => documentedCell(Object.hasOwn(item.data, key) ? item.data[key] : undefined)),
          item.createdAt,
          item.updatedAt,
        ]),
      );
      const ndjson = await exported({ ...input, format: 'ndjson' }, principal);
      expect(ndjson.text).toBe(items.map((item) => `${JSON.stringify(item)}\n`).join(''));
    }
  }, 60_000);

  it('splits the same text into pages of the rows that fit the bytes it is given, the first one smaller', async () => {
    const whole = (await exported({ sort: 'text,-createdAt' }, member)).text;
    const em = env.db.orm.em.fork();
    const listing = await listedRecords({ em, organizationId: org.id, principal: member } as never, { model: 'things', sort: 'text,-createdAt' });
    const columns = listing.fields.filter((field) => !field.archivedAt).map((field) => field.key);
    const line = csvLines(columns, listing.fields, undefined);
    const pages: string[] = [];
    for await (const page of textPages(em, listing.query, line, { firstPageSize: 3, pageSize: 40, pageBytes: 2000 })) pages.push(Buffer.concat(page).toString());
    expect(pages.join('')).toBe(whole);
    // Each line starts with its record's id.
    const lineStarts = (page: string) => [...page.matchAll(/(?:^|\r\n)(?=[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12},)/g)].map((match) => match.index);
    const lines = pages.map((page) => lineStarts(page).length);
    expect(lines[0]).toBe(3);
    expect(Math.max(...lines)).toBeLessThanOrEqual(40);
    // After the first, a page takes the rows that the last one's bytes per row say fit its budget.
    // (The last page holds what is left.)
    for (let index = 0; index + 2 < pages.length; index++) expect(lines[index + 1]).toBe(Math.max(1, Math.min(40, Math.floor((2000 * lines[index]) / Buffer.byteLength(pages[index])))));
    expect(new Set(lines.slice(1, -1)).size).toBeGreaterThan(1);
  }, 60_000);

  it('writes an empty page as nothing', async () => {
    expect((await exported({ q: 'no record has this' }, admin)).text).toBe('');
  });
});
