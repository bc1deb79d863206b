import ipaddr from 'ipaddr.js';

/*
 * Which addresses a webhook may be sent to. Ranges come from ipaddr.js (its `range()` names every
 * special-purpose block), never from hand-written patterns. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped, IPv4-translated, NAT64, 6to4) are judged by the IPv4 address they carry, since that
 * is where the packets may end up. So are the forms that are not globally routed but still carry
 * one (IPv4-compatible, local-use NAT64): their IPv4 address names the refusal, and one that is
 * public leaves them refused as not globally routed.
 */

export type AddressPolicyMode = 'production' | 'development';
export type WebhookProtocol = 'http:' | 'https:';

export interface AddressPolicyOptions {
  mode: AddressPolicyMode;
  /** Operator-allowed ranges (WEBHOOK_ALLOWED_CIDRS): allowed whatever their class; the protocol rule still applies. */
  allowedCidrs?: readonly string[];
}

export interface AddressPolicy {
  readonly mode: AddressPolicyMode;
  /** Why a scheme is refused whatever the address, or null. */
  schemeRefusal(protocol: string): string | null;
  /** Why sending to `address` (an IP address, canonical text) over `protocol` is refused, or null when allowed. */
  refusal(address: string, protocol: WebhookProtocol): string | null;
}

type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [IpAddress, number];

function cidr(text: string): Cidr {
  return ipaddr.parseCIDR(text);
}

/** Cloud instance-metadata services outside link-local: Alibaba (in CGNAT space), AWS over IPv6. */
const CLOUD_METADATA: readonly Cidr[] = [cidr('100.100.100.200/32'), cidr('fd00:ec2::254/128')];

const IPV4_COMPATIBLE = cidr('::/96'); // deprecated: ::127.0.0.1 and friends
const LOCAL_USE_NAT64 = cidr('64:ff9b:1::/48'); // local-use IPv4/IPv6 translation, its /96 form
/** IPv6 blocks that ipaddr.js calls plain unicast but that are not globally routed. */
const NOT_GLOBAL_IPV6: readonly Cidr[] = [IPV4_COMPATIBLE, LOCAL_USE_NAT64, cidr('fec0::/10') /* site-local (deprecated) */];
/** Every globally routed IPv6 unicast address is in 2000::/3; the rest is unassigned. */
const GLOBAL_UNICAST_IPV6 = cidr('2000::/3');

/** In development, plain http may reach these: the developer's own machine and network. */
const HTTP_RANGES_IN_DEVELOPMENT = new Set(['loopback', 'private', 'uniqueLocal']);
/** Refused even in development: the metadata service answers credentials on link-local. */
const REFUSED_IN_DEVELOPMENT = new Set(['linkLocal', 'cloudMetadata']);

const RANGE_LABELS: Readonly<Record<string, string>> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private-network address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique-local address',
  teredo: 'a Teredo tunnel address',
  cloudMetadata: 'a cloud metadata address',
  notGlobal: 'an address that is not globally routed',
};

interface Judgement {
  /** ipaddr.js's range name, or one of ours (cloudMetadata, notGlobal). */
  range: string;
  /** The IPv6 form the judged IPv4 address arrived in, if any. */
  carriedIn?: string;
}

function inAny(address: IpAddress, ranges: readonly Cidr[]): boolean {
  return ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
}

function ipv4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 address an IPv6 address carries, with the name of the form, or null. */
function carriedIpv4(address: ipaddr.IPv6): { ipv4: ipaddr.IPv4; form: string } | null {
  const words = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped':
      return { ipv4: address.toIPv4Address(), form: 'IPv4-mapped' };
    case 'rfc6145':
      return { ipv4: ipv4FromWords(words[6], words[7]), form: 'IPv4-translated' };
    case 'rfc6052':
      return { ipv4: ipv4FromWords(words[6], words[7]), form: 'NAT64' };
    case '6to4':
      return { ipv4: ipv4FromWords(words[1], words[2]), form: '6to4' };
    default:
      return null;
  }
}

/** The IPv4 address in the last 32 bits of a unicast IPv6 form that is not globally routed, or null. */
function ipv4InNotGlobalForm(address: ipaddr.IPv6): { ipv4: ipaddr.IPv4; form: string } | null {
  const words = address.parts;
  if (inAny(address, [IPV4_COMPATIBLE])) return { ipv4: ipv4FromWords(words[6], words[7]), form: 'IPv4-compatible' };
  if (inAny(address, [LOCAL_USE_NAT64])) return { ipv4: ipv4FromWords(words[6], words[7]), form: 'local-use NAT64' };
  return null;
}

function carriedIpv4Of(address: IpAddress): ipaddr.IPv4 | null {
  return address.kind() === 'ipv6' ? (carriedIpv4(address as ipaddr.IPv6)?.ipv4 ?? null) : null;
}

function judgeIpv4(address: ipaddr.IPv4): Judgement {
  if (inAny(address, CLOUD_METADATA)) return { range: 'cloudMetadata' };
  return { range: address.range() };
}

function judge(address: IpAddress): Judgement {
  if (address.kind() === 'ipv4') return judgeIpv4(address as ipaddr.IPv4);
  const ipv6 = address as ipaddr.IPv6;
  const carried = carriedIpv4(ipv6);
  if (carried) return { ...judgeIpv4(carried.ipv4), carriedIn: carried.form };
  if (inAny(ipv6, CLOUD_METADATA)) return { range: 'cloudMetadata' };
  const range = ipv6.range();
  if (range !== 'unicast') return { range };
  const embedded = ipv4InNotGlobalForm(ipv6);
  if (embedded) {
    const byIpv4 = judgeIpv4(embedded.ipv4);
    if (byIpv4.range !== 'unicast') return { ...byIpv4, carriedIn: embedded.form };
  }
  if (inAny(ipv6, NOT_GLOBAL_IPV6) || !ipv6.match(GLOBAL_UNICAST_IPV6)) return { range: 'notGlobal' };
  return { range };
}

function reasonFor({ range, carriedIn }: Judgement): string {
  const label = RANGE_LABELS[range] ?? `an address of the special-purpose range "${range}"`;
  return carriedIn ? `${label} in ${carriedIn} form` : label;
}

/** Parses only canonical forms: what a resolver or a WHATWG URL yields, never `0177.1`-style guesses. */
function parseAddress(text: string): IpAddress | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

export function createAddressPolicy({ mode, allowedCidrs = [] }: AddressPolicyOptions): AddressPolicy {
  const allowed = allowedCidrs.map((text) => {
    try {
      return cidr(text);
    } catch {
      throw new TypeError(`Not a CIDR range: "${text}"`);
    }
  });

  function schemeRefusal(protocol: string): string | null {
    if (protocol !== 'https:' && protocol !== 'http:') return 'only http and https URLs can receive webhooks';
    if (mode === 'production' && protocol === 'http:') return 'webhook URLs must use https';
    return null;
  }

  function refusal(text: string, protocol: WebhookProtocol): string | null {
    const refusedScheme = schemeRefusal(protocol);
    if (refusedScheme) return refusedScheme;
    const parsed = parseAddress(text);
    if (!parsed) return 'not an IP address';
    const judgement = judge(parsed);
    if (protocol === 'http:' && !HTTP_RANGES_IN_DEVELOPMENT.has(judgement.range)) {
      return 'plain http is only allowed to loopback or private-network addresses';
    }
    const carried = carriedIpv4Of(parsed);
    if (inAny(parsed, allowed) || (carried !== null && inAny(carried, allowed))) return null;
    if (mode === 'development') return REFUSED_IN_DEVELOPMENT.has(judgement.range) ? reasonFor(judgement) : null;
    return judgement.range === 'unicast' ? null : reasonFor(judgement);
  }

  return { mode, schemeRefusal, refusal };
}
