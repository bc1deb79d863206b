import { describe, expect, it } from 'vitest';
import { apiReferenceOperation, modelApiReference } from './api-reference';

describe('links into the API reference', () => {
  it("use Redoc's tag and operation anchors", () => {
    expect(apiReferenceOperation('Records', 'listRecords')).toBe('/api/v1/docs#tag/Records/operation/listRecords');
  });

  it("point at a model's generic operations and at its own typed section", () => {
    expect(modelApiReference('open_deals')).toEqual({
      list: '/api/v1/docs#tag/Records/operation/listRecords',
      create: '/api/v1/docs#tag/Records/operation/createRecord',
      typed: '/api/v1/docs#tag/open_deals',
    });
  });
});
