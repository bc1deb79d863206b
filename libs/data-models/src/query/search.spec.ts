import type { FieldDefinition } from '@mrp/field-validation';
import { searchCondition } from './search';

const field = (key: string, type: FieldDefinition['type']): [string, FieldDefinition] => [key, { key, type, config: {}, required: false }];

describe('searchCondition', () => {
  it('tests the title alone when no other field is searched, so the trigram index on titles can answer it', () => {
    const condition = searchCondition('abc', new Map([field('title', 'TEXT'), field('amount', 'NUMBER'), field('notes', 'LONG_TEXT')]));
    expect(condition.text).toBe('r.title ILIKE ?');
    expect(condition.params).toEqual(['%abc%']);
  });

  it('also tests every TEXT, EMAIL and URL field, with the text as a bind value each time', () => {
    const fields = new Map([field('title', 'TEXT'), field('name', 'TEXT'), field('email', 'EMAIL'), field('site', 'URL'), field('status', 'SELECT')]);
    const condition = searchCondition('x', fields);
    expect(condition.text).toBe(`(r.title ILIKE ? OR (r.data->>'name') ILIKE ? OR (r.data->>'email') ILIKE ? OR (r.data->>'site') ILIKE ?)`);
    expect(condition.params).toEqual(['%x%', '%x%', '%x%', '%x%']);
  });

  it('takes %, _ and \\ literally', () => {
    expect(searchCondition('50%_a\\b', new Map()).params).toEqual(['%50\\%\\_a\\\\b%']);
  });

  it('never puts the text into the SQL itself', () => {
    expect(searchCondition("'; DROP TABLE records; --", new Map([field('name', 'TEXT')])).text).not.toContain('DROP');
  });
});
