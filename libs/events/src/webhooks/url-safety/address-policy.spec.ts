import { createAddressPolicy } from './address-policy';

const production = createAddressPolicy({ mode: 'production' });
const development = createAddressPolicy({ mode: 'development' });

describe('address policy in production', () => {
  it.each([
    ['93.184.216.34'],
    ['8.8.8.8'],
    ['2606:4700:4700::1111'],
    ['::ffff:93.184.216.34'],
    ['64:ff9b::5db8:d822'], // NAT64 of 93.184.216.34
    ['2002:5db8:d822::1'], // 6to4 of 93.184.216.34
  ])('allows https to the public unicast address %s', (address) => {
    expect(production.refusal(address, 'https:')).toBeNull();
  });

  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['10.0.0.1', 'a private-network address'],
    ['172.16.5.4', 'a private-network address'],
    ['192.168.1.1', 'a private-network address'],
    ['169.254.169.254', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['fd00::1', 'a unique-local address'],
    ['fc00::1', 'a unique-local address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['100.100.100.200', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['224.0.0.1', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['255.255.255.255', 'a broadcast address'],
    ['0.0.0.0', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['192.0.2.1', 'a reserved address'],
    ['240.0.0.1', 'a reserved address'],
    ['198.18.0.1', 'a reserved address'],
    ['2001:db8::1', 'a reserved address'],
    ['192.52.193.1', 'an address of the special-purpose range "amt"'],
    ['100::1', 'an address of the special-purpose range "discard"'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a Teredo tunnel address'],
    ['::5db8:d822', 'an address that is not globally routed'], // IPv4-compatible 93.184.216.34
    ['64:ff9b:1::5db8:d822', 'an address that is not globally routed'], // local-use NAT64 of 93.184.216.34
    ['fec0::1', 'an address that is not globally routed'],
    ['4000::1', 'an address that is not globally routed'],
  ])('refuses %s: %s', (address, reason) => {
    expect(production.refusal(address, 'https:')).toBe(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', 'a loopback address in IPv4-mapped form'],
    ['::ffff:a9fe:a9fe', 'a link-local address in IPv4-mapped form'],
    ['::ffff:0:7f00:1', 'a loopback address in IPv4-translated form'],
    ['64:ff9b::a9fe:a9fe', 'a link-local address in NAT64 form'],
    ['64:ff9b::10.0.0.1', 'a private-network address in NAT64 form'],
    ['2002:7f00:1::', 'a loopback address in 6to4 form'],
    ['2002:a9fe:a9fe::1', 'a link-local address in 6to4 form'],
    ['::7f00:1', 'a loopback address in IPv4-compatible form'],
    ['::a9fe:a9fe', 'a link-local address in IPv4-compatible form'],
    ['64:ff9b:1::a00:1', 'a private-network address in local-use NAT64 form'],
    ['64:ff9b:1::a9fe:a9fe', 'a link-local address in local-use NAT64 form'],
  ])('judges %s by the IPv4 address it carries', (address, reason) => {
    expect(production.refusal(address, 'https:')).toBe(reason);
  });

  it('refuses plain http, even to a public address', () => {
    expect(production.refusal('93.184.216.34', 'http:')).toBe('webhook URLs must use https');
    expect(production.schemeRefusal('http:')).toBe('webhook URLs must use https');
    expect(production.schemeRefusal('https:')).toBeNull();
  });

  it.each(['localhost', '0177.0.0.1', '0x7f000001', '2130706433', '127.1', ''])(
    'does not guess at %p: only canonical IP addresses are judged',
    (text) => {
      expect(production.refusal(text, 'https:')).toBe('not an IP address');
    },
  );
});

describe('address policy in development', () => {
  it.each(['127.0.0.1', '::1', '10.1.2.3', '172.20.0.2', '192.168.0.10', 'fd12::1', '::ffff:127.0.0.1'])(
    'allows plain http to the loopback or private address %s',
    (address) => {
      expect(development.refusal(address, 'http:')).toBeNull();
    },
  );

  it.each(['93.184.216.34', '100.64.0.1', '2606:4700:4700::1111', '0.0.0.0'])('refuses plain http to %s', (address) => {
    expect(development.refusal(address, 'http:')).toBe('plain http is only allowed to loopback or private-network addresses');
  });

  it.each(['93.184.216.34', '127.0.0.1', '10.0.0.1', '100.64.0.1', 'fd00::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2'])(
    'allows https to %s',
    (address) => {
      expect(development.refusal(address, 'https:')).toBeNull();
    },
  );

  it.each([
    ['169.254.169.254', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['::ffff:169.254.169.254', 'a link-local address in IPv4-mapped form'],
    ['64:ff9b::a9fe:a9fe', 'a link-local address in NAT64 form'],
    ['::a9fe:a9fe', 'a link-local address in IPv4-compatible form'],
    ['64:ff9b:1::a9fe:a9fe', 'a link-local address in local-use NAT64 form'],
    ['::6464:64c8', 'a cloud metadata address in IPv4-compatible form'],
    ['100.100.100.200', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
  ])('still refuses the link-local or metadata address %s over https', (address, reason) => {
    expect(development.refusal(address, 'https:')).toBe(reason);
  });

  it('refuses plain http to the metadata address', () => {
    expect(development.refusal('169.254.169.254', 'http:')).not.toBeNull();
  });

  it('refuses schemes other than http and https', () => {
    for (const scheme of ['ftp:', 'file:', 'gopher:', 'javascript:']) {
      expect(development.schemeRefusal(scheme)).toBe('only http and https URLs can receive webhooks');
    }
  });
});

describe('operator-allowed ranges', () => {
  const allowing = createAddressPolicy({ mode: 'production', allowedCidrs: ['10.20.0.0/16', 'fd00:1234::/32', '169.254.10.0/24'] });

  it('allow addresses inside them whatever their class', () => {
    expect(allowing.refusal('10.20.3.4', 'https:')).toBeNull();
    expect(allowing.refusal('fd00:1234::5', 'https:')).toBeNull();
    expect(allowing.refusal('169.254.10.9', 'https:')).toBeNull();
    expect(allowing.refusal('::ffff:10.20.3.4', 'https:')).toBeNull();
  });

  it('allow nothing next to them', () => {
    expect(allowing.refusal('10.21.0.1', 'https:')).toBe('a private-network address');
    expect(allowing.refusal('fd00:1235::5', 'https:')).toBe('a unique-local address');
    expect(allowing.refusal('169.254.169.254', 'https:')).toBe('a link-local address');
  });

  it('leave the protocol rule in force', () => {
    expect(allowing.refusal('10.20.3.4', 'http:')).toBe('webhook URLs must use https');
    const developmentAllowing = createAddressPolicy({ mode: 'development', allowedCidrs: ['203.0.113.0/24'] });
    expect(developmentAllowing.refusal('203.0.113.7', 'http:')).toBe(
      'plain http is only allowed to loopback or private-network addresses',
    );
    expect(developmentAllowing.refusal('203.0.113.7', 'https:')).toBeNull();
  });

  it('must be CIDR ranges', () => {
    expect(() => createAddressPolicy({ mode: 'production', allowedCidrs: ['10.0.0.0'] })).toThrow('Not a CIDR range: "10.0.0.0"');
    expect(() => createAddressPolicy({ mode: 'production', allowedCidrs: ['example.com/8'] })).toThrow(TypeError);
  });
});
