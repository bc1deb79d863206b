import { eventMatches, patternMatchesType, SUBSCRIPTION_PATTERN } from './subscription-pattern';

describe('subscription patterns', () => {
  it.each([
    ['*', 'user.email-changed', true],
    ['user.*', 'user.email-changed', true],
    ['user.*', 'users.email-changed', false],
    ['user.email-changed', 'user.email-changed', true],
    ['user.email', 'user.email-changed', false],
    ['data-models.*', 'data-models.customers.record-created', true],
  ])('%s matches %s: %s', (pattern, type, expected) => {
    expect(patternMatchesType(pattern, type)).toBe(expected);
  });

  it('matches through aliases', () => {
    const recordCreated = { type: 'data-models.record-created', subscriptionAliases: ['data-models.orders.record-created'] };
    expect(eventMatches('data-models.orders.record-created', recordCreated)).toBe(true);
    expect(eventMatches('data-models.invoices.record-created', recordCreated)).toBe(false);
  });

  it('accepts only well-formed patterns', () => {
    expect(['*', 'data-models.*', 'rbac.role-created', 'data-models.orders.record-created'].every((p) => SUBSCRIPTION_PATTERN.test(p))).toBe(true);
    expect(['', '**', 'Data.*', 'a.*.b', 'a b'].some((p) => SUBSCRIPTION_PATTERN.test(p))).toBe(false);
  });
});
