import { describe, expect, it } from 'vitest';
import { matchedAliases, possibleAliases } from './subscription-patterns';

const created = { type: 'data-models.record-created', subscriptionAliases: ['data-models.deals.record-created'] };

describe('matchedAliases', () => {
  it('names the per-model alias a subscription matched when the type itself matched none', () => {
    expect(matchedAliases(created, ['data-models.deals.record-created'])).toEqual(['data-models.deals.record-created']);
    expect(matchedAliases(created, ['data-models.deals.*'])).toEqual(['data-models.deals.record-created']);
  });

  it('names none when the type itself matched', () => {
    expect(matchedAliases(created, ['data-models.record-created', 'data-models.deals.record-created'])).toEqual([]);
    expect(matchedAliases(created, ['*'])).toEqual([]);
    expect(matchedAliases({ type: 'rbac.role-created' }, ['rbac.*'])).toEqual([]);
  });
});

describe('possibleAliases', () => {
  it("names the per-model types of a listed delivery the endpoint's subscriptions name or cover", () => {
    expect(possibleAliases('data-models.record-created', ['data-models.deals.record-created', 'data-models.deals.record-deleted'])).toEqual([
      'data-models.deals.record-created',
    ]);
    expect(possibleAliases('data-models.record-updated', ['data-models.deals.*', 'data-models.orders.record-updated'])).toEqual([
      'data-models.deals.record-updated',
      'data-models.orders.record-updated',
    ]);
  });

  it('names none when the type itself matched, or for other events', () => {
    expect(possibleAliases('data-models.record-created', ['data-models.*', 'data-models.deals.record-created'])).toEqual([]);
    expect(possibleAliases('rbac.role-created', ['rbac.role-created'])).toEqual([]);
  });
});
