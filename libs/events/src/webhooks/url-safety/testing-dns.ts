import type { HostLookup, ResolvedAddress } from './host-lookup';

function resolved(address: string): ResolvedAddress {
  return { address, family: address.includes(':') ? 6 : 4 };
}

function notFound(hostname: string): Error {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
}

/** A DNS server played by a table: each name answers its addresses; any other name does not resolve. */
export function fakeDns(table: Readonly<Record<string, readonly string[]>>): HostLookup & { asked: string[] } {
  const asked: string[] = [];
  const lookup = async (hostname: string) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw notFound(hostname);
    return addresses.map(resolved);
  };
  return Object.assign(lookup, { asked });
}

/** A name that answers `first` once and `then` ever after: DNS rebinding between creation and delivery. */
export function rebindingDns(hostname: string, first: string, then: string): HostLookup {
  let calls = 0;
  return async (asked) => {
    if (asked !== hostname) throw notFound(asked);
    calls += 1;
    return [resolved(calls === 1 ? first : then)];
  };
}
