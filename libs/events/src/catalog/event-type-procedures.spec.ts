import { testPrincipal } from '@mrp/platform/testing';
import { createWebhookTestBed, type WebhookTestBed } from '@mrp/events/testing';
import { EVENT_TYPES } from './event-catalog';
import { listEventTypes } from './event-type-procedures';

describe('webhooks.eventTypes.list', () => {
  let bed: WebhookTestBed;
  beforeAll(async () => {
    bed = await createWebhookTestBed([listEventTypes]);
  });
  afterAll(() => bed.close());

  it('lists every type of the catalog once, sorted, to any signed-in person, without an organization', async () => {
    const anyone = testPrincipal({ userId: 'someone', organizationId: null, permissions: new Set() });
    const { items } = await bed.call<{ items: Array<{ type: string }> }>('webhooks.eventTypes.list', {}, anyone);
    const types = items.map((item) => item.type);
    expect(types).toEqual([...EVENT_TYPES].sort());
    expect(types).toContain('data-models.record-created');
    expect(new Set(types).size).toBe(types.length);
  });

  it('refuses input it does not know, as every procedure does', async () => {
    const anyone = testPrincipal({ userId: 'someone', organizationId: null, permissions: new Set() });
    await expect(bed.call('webhooks.eventTypes.list', { organizationId: 'x' }, anyone)).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
