import { RecordModelCache } from './record-model-cache';
import type { RecordModel } from './model-store';

const model = (key: string, fieldsVersion = '1'): RecordModel => ({ model: { id: `id-${key}`, key }, fields: [], fieldsVersion });

describe('RecordModelCache', () => {
  it('keeps models per organization and key', () => {
    const cache = new RecordModelCache();
    cache.set('org-a', model('deals'));
    cache.set('org-b', model('deals', '7'));
    expect(cache.get('org-a', 'deals')?.fieldsVersion).toBe('1');
    expect(cache.get('org-b', 'deals')?.fieldsVersion).toBe('7');
    expect(cache.get('org-a', 'other')).toBeUndefined();
    expect(cache.get('org-c', 'deals')).toBeUndefined();
  });

  it('replaces an entry and forgets a deleted one', () => {
    const cache = new RecordModelCache();
    cache.set('org-a', model('deals', '1'));
    cache.set('org-a', model('deals', '2'));
    expect(cache.get('org-a', 'deals')?.fieldsVersion).toBe('2');
    cache.delete('org-a', 'deals');
    expect(cache.get('org-a', 'deals')).toBeUndefined();
  });

  it('stays within its capacity by letting the entry stored first go', () => {
    const cache = new RecordModelCache(3);
    cache.set('org-a', model('one'));
    cache.set('org-a', model('two'));
    cache.set('org-b', model('one'));
    cache.set('org-c', model('one'));
    expect(cache.get('org-a', 'one')).toBeUndefined();
    expect(cache.get('org-a', 'two')).toBeDefined();
    cache.set('org-c', model('two'));
    expect(cache.get('org-a', 'two')).toBeUndefined();
    expect(['org-b', 'org-c'].map((org) => cache.get(org, 'one')).every(Boolean)).toBe(true);
    // One organization alone is held to the capacity too.
    const single = new RecordModelCache(2);
    for (const key of ['a', 'b', 'c', 'd']) single.set('org', model(key));
    expect(['a', 'b', 'c', 'd'].map((key) => single.get('org', key) !== undefined)).toEqual([false, false, true, true]);
    // Deleting frees room.
    single.delete('org', 'c');
    single.set('org', model('e'));
    expect(single.get('org', 'd')).toBeDefined();
    expect(single.get('org', 'e')).toBeDefined();
  });
});
