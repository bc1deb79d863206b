import { DomainError, freePort } from '@mrp/platform';
import { createAddressPolicy } from './address-policy';
import { checkEndpointUrl } from './check-endpoint-url';
import { fakeDns, rebindingDns } from './testing-dns';

const production = createAddressPolicy({ mode: 'production' });
const development = createAddressPolicy({ mode: 'development' });

const dns = fakeDns({
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example.com': ['10.0.0.5'],
  'partly-internal.example.com': ['93.184.216.34', '127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  'empty.example.com': [],
});

async function refusalOf(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DomainError);
  const { code, details, message } = error as DomainError;
  expect(code).toBe('validation_failed');
  expect(details).toHaveLength(1);
  expect(details![0].field).toBe('url');
  expect(details![0].message).toBe(message);
  return { code: details![0].code, message };
}

const NOT_ALLOWED_ADDRESS = { code: 'not_allowed', message: "The URL's address is not allowed" };
const RESOLVES_TO_NOT_ALLOWED = { code: 'not_allowed', message: "The URL's host resolves to an address that is not allowed" };
const MUST_USE_HTTPS = { code: 'not_allowed', message: 'The URL must use https' };

describe('checkEndpointUrl', () => {
  describe('in production', () => {
    it('accepts an https URL whose every address is public, and returns it normalised', async () => {
      await expect(checkEndpointUrl('HTTPS://Hooks.Example.com:443/in?x=1', production, { lookup: dns })).resolves.toBe(
        'https://hooks.example.com/in?x=1',
      );
    });

    it('refuses plain http without resolving anything', async () => {
      const lookup = fakeDns({});
      await expect(refusalOf(checkEndpointUrl('http://hooks.example.com/', production, { lookup }))).resolves.toEqual(MUST_USE_HTTPS);
      expect(lookup.asked).toEqual([]);
    });

    it('refuses a host name that resolves to 127.0.0.1 (localhost, through the system resolver)', async () => {
      const port = await freePort();
      await expect(refusalOf(checkEndpointUrl(`https://localhost:${port}/`, production))).resolves.toEqual(RESOLVES_TO_NOT_ALLOWED);
    });

    it.each(['internal.example.com', 'partly-internal.example.com', 'metadata.example.com'])(
      'refuses %s: every address must be allowed, and the message does not say which one is not',
      async (host) => {
        await expect(refusalOf(checkEndpointUrl(`https://${host}/`, production, { lookup: dns }))).resolves.toEqual(
          RESOLVES_TO_NOT_ALLOWED,
        );
      },
    );

    it.each(['nowhere.example.com', 'empty.example.com'])('refuses %s, which does not resolve', async (host) => {
      await expect(refusalOf(checkEndpointUrl(`https://${host}/`, production, { lookup: dns }))).resolves.toEqual({
        code: 'unresolvable',
        message: "The URL's host name does not resolve",
      });
    });

    it('resolves anew on every check: a name that has turned inward is refused', async () => {
      const lookup = rebindingDns('rebind.example.com', '93.184.216.34', '127.0.0.1');
      await expect(checkEndpointUrl('https://rebind.example.com/', production, { lookup })).resolves.toBe('https://rebind.example.com/');
      await expect(refusalOf(checkEndpointUrl('https://rebind.example.com/', production, { lookup }))).resolves.toEqual(
        RESOLVES_TO_NOT_ALLOWED,
      );
    });

    describe('refuses internal addresses however they are spelt', () => {
      it.each([
        'https://[::ffff:169.254.169.254]/',
        'https://0x7f000001/',
        'https://2130706433/',
        'https://0177.0.0.1/',
        'https://127.1/',
        'https://[::1]/',
        'https://[fd00::1]/',
        'https://[2002:7f00:1::]/',
        'https://[64:ff9b::a9fe:a9fe]/',
        'https://100.100.100.200/',
        'https://169.254.169.254/latest/meta-data/',
        'https://[fe80::1]/',
        'https://0.0.0.0/',
      ])('%s', async (url) => {
        const lookup = fakeDns({});
        await expect(refusalOf(checkEndpointUrl(url, production, { lookup }))).resolves.toEqual(NOT_ALLOWED_ADDRESS);
        expect(lookup.asked).toEqual([]);
      });

      it.each(['http://[::ffff:169.254.169.254]/', 'http://0x7f000001/', 'http://2130706433/', 'http://0177.0.0.1/'])(
        '%s (plain http as well)',
        async (url) => {
          await expect(refusalOf(checkEndpointUrl(url, production, { lookup: dns }))).resolves.toEqual(MUST_USE_HTTPS);
        },
      );
    });

    it('accepts a public IP literal without resolving it', async () => {
      const lookup = fakeDns({});
      await expect(checkEndpointUrl('https://93.184.216.34/hook', production, { lookup })).resolves.toBe('https://93.184.216.34/hook');
      await expect(checkEndpointUrl('https://[2606:4700:4700::1111]/', production, { lookup })).resolves.toBe(
        'https://[2606:4700:4700::1111]/',
      );
      expect(lookup.asked).toEqual([]);
    });

    it('accepts an internal address the operator allowed', async () => {
      const allowing = createAddressPolicy({ mode: 'production', allowedCidrs: ['10.0.0.0/24'] });
      await expect(checkEndpointUrl('https://internal.example.com/', allowing, { lookup: dns })).resolves.toBe(
        'https://internal.example.com/',
      );
    });
  });

  describe('in development', () => {
    it('accepts plain http to loopback, in any spelling, normalised', async () => {
      const port = await freePort();
      await expect(checkEndpointUrl(`http://127.0.0.1:${port}/hook`, development)).resolves.toBe(`http://127.0.0.1:${port}/hook`);
      await expect(checkEndpointUrl('http://0x7f000001/', development)).resolves.toBe('http://127.0.0.1/');
      await expect(checkEndpointUrl('http://2130706433/', development)).resolves.toBe('http://127.0.0.1/');
      await expect(checkEndpointUrl('http://0177.0.0.1/', development)).resolves.toBe('http://127.0.0.1/');
      await expect(checkEndpointUrl(`http://localhost:${port}/`, development)).resolves.toBe(`http://localhost:${port}/`);
    });

    it('accepts plain http to a private-network host', async () => {
      await expect(checkEndpointUrl('http://internal.example.com/', development, { lookup: dns })).resolves.toBe(
        'http://internal.example.com/',
      );
    });

    it('refuses plain http to a public address, and says https would do', async () => {
      const plainHttp = { code: 'not_allowed', message: 'Plain http is only allowed to loopback or private-network hosts; use https' };
      await expect(refusalOf(checkEndpointUrl('http://93.184.216.34/', development))).resolves.toEqual(plainHttp);
      await expect(refusalOf(checkEndpointUrl('http://hooks.example.com/', development, { lookup: dns }))).resolves.toEqual(plainHttp);
      await expect(checkEndpointUrl('https://hooks.example.com/', development, { lookup: dns })).resolves.toBe('https://hooks.example.com/');
    });

    it.each([
      'http://169.254.169.254/',
      'https://169.254.169.254/',
      'http://[::ffff:169.254.169.254]/',
      'https://[::a9fe:a9fe]/',
      'https://[::169.254.169.254]/',
      'https://[64:ff9b:1::a9fe:a9fe]/',
      'https://100.100.100.200/',
    ])(
      'still refuses the metadata address %s',
      async (url) => {
        await expect(refusalOf(checkEndpointUrl(url, development))).resolves.toEqual(NOT_ALLOWED_ADDRESS);
      },
    );

    it('still refuses a host name that resolves to the metadata address', async () => {
      await expect(refusalOf(checkEndpointUrl('https://metadata.example.com/', development, { lookup: dns }))).resolves.toEqual(
        RESOLVES_TO_NOT_ALLOWED,
      );
    });
  });

  describe('refuses URLs that are not plain http(s) endpoints', () => {
    it.each([
      ['not a url', 'The URL must be an absolute http(s) URL'],
      ['/relative/path', 'The URL must be an absolute http(s) URL'],
      ['ftp://hooks.example.com/', 'The URL must be an absolute http(s) URL'],
      ['file:///etc/passwd', 'The URL must be an absolute http(s) URL'],
      ['javascript:alert(1)', 'The URL must be an absolute http(s) URL'],
      ['https://user:pass@hooks.example.com/', 'The URL must not contain a user name or password'],
      ['https://user@hooks.example.com/', 'The URL must not contain a user name or password'],
    ])('%s', async (url, message) => {
      await expect(refusalOf(checkEndpointUrl(url, development, { lookup: dns }))).resolves.toEqual({ code: 'invalid_format', message });
    });

    it('longer than 2,048 characters', async () => {
      const base = 'https://hooks.example.com/';
      const atLimit = base + 'a'.repeat(2048 - base.length);
      await expect(checkEndpointUrl(atLimit, production, { lookup: dns })).resolves.toBe(atLimit);
      await expect(refusalOf(checkEndpointUrl(`${atLimit}a`, production, { lookup: dns }))).resolves.toEqual({
        code: 'too_long',
        message: 'The URL must be at most 2048 characters',
      });
    });

    it('that grow past 2,048 characters once normalised', async () => {
      // 1,026 characters as typed; each é becomes %C3%A9.
      const typed = `https://hooks.example.com/${'é'.repeat(1000)}`;
      await expect(refusalOf(checkEndpointUrl(typed, production, { lookup: dns }))).resolves.toMatchObject({ code: 'too_long' });
    });
  });
});
