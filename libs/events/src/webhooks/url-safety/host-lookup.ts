import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a host name resolves to. Tests inject a fake to play a DNS server. */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemLookup: HostLookup = (hostname) => dns.lookup(hostname, { all: true });

/** The IP address a URL's host spells, without IPv6 brackets; null for a host name. */
export function ipLiteralOf(url: URL): string | null {
  const host = url.hostname.startsWith('[') && url.hostname.endsWith(']') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) ? host : null;
}
