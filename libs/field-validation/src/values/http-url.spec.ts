import fc from 'fast-check';
import { isHttpUrl, MAX_URL_LENGTH } from './http-url';

describe('isHttpUrl', () => {
  it('accepts absolute http and https URLs', () => {
    for (const url of [
      'https://example.com',
      'http://example.com/path?query=1#frag',
      'HTTPS://Example.COM:8443/a%20b',
      'http://localhost:3000/',
      'http://127.0.0.1/x',
      'http://[::1]:8080/',
      'https://sub.domain.example.co.uk/a/b/c?x=(1)&y=[2]',
    ]) {
      expect(isHttpUrl(url)).toBe(true);
    }
  });

  it('rejects other schemes, relative URLs, credentials and malformed hosts', () => {
    for (const url of [
      'ftp://example.com',
      'javascript:alert(1)',
      'data:text/html,hi',
      '//example.com',
      '/relative',
      'example.com',
      'http://',
      'http:///path',
      'https://user:password@example.com',
      'https://example.com@evil.example',
      'http://exa mple.com',
      'http://example.com/a b',
      'http://example.com/\u0000',
      'http://-example.com',
      'http://example-.com',
      'http://example..com',
      'http://256.1.1.1',
      'http://1.2.3',
      'http://example.com:0',
      'http://example.com:99999',
      'http://example.com:/',
      'http://example.com/%zz',
      'http://example.com/<script>',
      'http://[::1',
    ]) {
      expect(isHttpUrl(url)).toBe(false);
    }
  });

  it(`rejects URLs longer than ${MAX_URL_LENGTH} characters`, () => {
    const base = 'https://example.com/';
    expect(isHttpUrl(base + 'a'.repeat(MAX_URL_LENGTH - base.length))).toBe(true);
    expect(isHttpUrl(base + 'a'.repeat(MAX_URL_LENGTH - base.length + 1))).toBe(false);
  });

  it('accepts every URL fast-check considers a valid web URL', () => {
    fc.assert(
      fc.property(
        fc.webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true }),
        (url) => {
          expect(isHttpUrl(url)).toBe(url.length <= MAX_URL_LENGTH);
        },
      ),
    );
  });
});
