import { describe, expect, it } from 'vitest';
import { checkText, collectErrors } from './text-rules';

describe('checkText', () => {
  it("applies field-validation's rule: text PostgreSQL cannot store is refused before it is sent", () => {
    expect(checkText('fine')).toBeUndefined();
    expect(checkText('nul\u0000inside')).toMatch(/cannot be stored/);
    expect(checkText('lone \uD800 surrogate')).toMatch(/cannot be stored/);
    expect(checkText('pair \uD83D\uDE00 is fine')).toBeUndefined();
  });

  it('checks required and length', () => {
    expect(checkText(' ', { required: true })).toBe('Required');
    expect(checkText('', {})).toBeUndefined();
    expect(checkText('abcd', { maxLength: 3 })).toBe('At most 3 characters');
  });

  it('collects only the failures', () => {
    expect(collectErrors({ a: undefined, b: 'Required' })).toEqual({ b: 'Required' });
  });
});
