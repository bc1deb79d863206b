import { describe, expect, it } from 'vitest';
import { DELIVERY_PAGE_SIZE, NO_DELIVERY_FILTERS, checkDeliveryFilters, filtersFromSearch, filtersToSearch } from './delivery-filters';

describe('the delivery log filters', () => {
  it('send only what is chosen, with the window as ISO instants', () => {
    expect(checkDeliveryFilters(NO_DELIVERY_FILTERS)).toEqual({ errors: {}, input: { limit: DELIVERY_PAGE_SIZE } });
    const { input } = checkDeliveryFilters({ endpointId: 'e-1', status: 'failed', eventType: ' rbac.role-created ', since: '2026-11-24T09:00', until: '' });
    expect(input).toEqual({ endpointId: 'e-1', status: 'failed', eventType: 'rbac.role-created', since: new Date(2026, 10, 24, 9, 0).toISOString(), limit: DELIVERY_PAGE_SIZE });
  });

  it('refuse an end before the start without sending anything', () => {
    expect(checkDeliveryFilters({ ...NO_DELIVERY_FILTERS, since: '2026-11-24T10:00', until: '2026-11-24T09:00' })).toEqual({ errors: { until: 'Must be after the start' } });
  });

  it('live in the address, so a filtered log can be linked to; unknown statuses are dropped', () => {
    const filters = { endpointId: 'e-1', status: 'pending' as const, eventType: 'data-models.record-created', since: '2026-11-24T09:00', until: '' };
    expect(filtersFromSearch(filtersToSearch(filters))).toEqual(filters);
    expect(filtersToSearch(NO_DELIVERY_FILTERS)).toBe('');
    expect(filtersFromSearch('?status=exploded').status).toBe('');
    expect(filtersFromSearch('?status=filtered').status).toBe('filtered');
  });
});
