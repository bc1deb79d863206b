import fc from 'fast-check';
import { unstorableText } from './text';

describe('unstorableText', () => {
  it.each([
    ['a\u0000b', 'nul'],
    ['\u0000', 'nul'],
    ['\ud800', 'lone_surrogate'],
    ['end \ud83d', 'lone_surrogate'],
    ['\ude00 start', 'lone_surrogate'],
    ['\udc00\ud800', 'lone_surrogate'],
    ['\ud83d\ud83d\ude00', 'lone_surrogate'],
  ])('%j is %s', (text, reason) => {
    expect(unstorableText(text)).toBe(reason);
  });

  it.each(['', 'plain', '😀', '\ud83d\ude00\ud83d\ude00', '\\u0000', '\u0001\u001f\u007f', 'ascii '.repeat(3)])('%j can be stored', (text) => {
    expect(unstorableText(text)).toBeUndefined();
  });

  /** encodeURIComponent refuses exactly the strings that are not well-formed UTF-16. */
  const isWellFormed = (text: string) => {
    try {
      encodeURIComponent(text);
      return true;
    } catch {
      return false;
    }
  };

  it('agrees with a NUL search and a well-formedness check', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff'), fc.string({ unit: 'binary', maxLength: 1 })) }), (text) => {
        const expected = text.includes('\u0000') ? 'nul' : isWellFormed(text) ? undefined : 'lone_surrogate';
        expect(unstorableText(text)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
