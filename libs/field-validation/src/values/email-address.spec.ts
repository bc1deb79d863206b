import fc from 'fast-check';
import { MAX_EMAIL_LENGTH, normaliseEmailAddress } from './email-address';

describe('normaliseEmailAddress', () => {
  it('lowercases only the domain', () => {
    expect(normaliseEmailAddress('Jane.Doe+tag@Example.COM')).toBe('Jane.Doe+tag@example.com');
  });

  it('rejects malformed addresses', () => {
    for (const text of ['plain', '@example.com', 'a@', 'a@localhost', 'a@b.c', 'a b@example.com', 'a..b@example.com', '.a@example.com', 'a.@example.com', 'a@-x.com', 'a@x..com', 'a@x.123', '"quoted"@example.com', 'ünï@example.com']) {
      expect(normaliseEmailAddress(text)).toBeUndefined();
    }
  });

  it('enforces the 254-character and 64-character local-part limits', () => {
    expect(normaliseEmailAddress(`${'a'.repeat(64)}@example.com`)).toBeDefined();
    expect(normaliseEmailAddress(`${'a'.repeat(65)}@example.com`)).toBeUndefined();
    const domain = `${'d'.repeat(61)}.${'d'.repeat(61)}.${'d'.repeat(61)}.com`;
    const longest = `${'a'.repeat(MAX_EMAIL_LENGTH - domain.length - 1)}@${domain}`;
    expect(longest).toHaveLength(MAX_EMAIL_LENGTH);
    expect(normaliseEmailAddress(longest)).toBe(longest);
    expect(normaliseEmailAddress(`a${longest}`)).toBeUndefined();
  });

  it('accepts generated RFC addresses and is idempotent', () => {
    fc.assert(
      fc.property(fc.emailAddress(), (address) => {
        fc.pre(address.length <= MAX_EMAIL_LENGTH);
        const normalised = normaliseEmailAddress(address);
        expect(normalised).toBe(address.slice(0, address.lastIndexOf('@')) + address.slice(address.lastIndexOf('@')).toLowerCase());
        expect(normaliseEmailAddress(normalised ?? '')).toBe(normalised);
      }),
    );
  });
});
