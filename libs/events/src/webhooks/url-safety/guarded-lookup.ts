import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AddressPolicy, WebhookProtocol } from './address-policy';
import type { HostLookup } from './host-lookup';

/** Raised inside the connection attempt when the name resolves to a refused address. */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';

  constructor() {
    super('The host resolves to an address that is not allowed');
  }
}

function notFound(): NodeJS.ErrnoException {
  return Object.assign(new Error('The host name does not resolve'), { code: 'ENOTFOUND' });
}

function wantedFamily(options: LookupOptions): 4 | 6 | null {
  const family: unknown = options.family;
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return null;
}

/**
 * The `lookup` that Node's net/tls connect calls for a host name (never for an IP literal): it
 * resolves every address and fails the connection when any of them is refused, so the address
 * dialled is always one that was checked, whatever the name resolved to when the endpoint was saved.
 */
export function guardedLookup(policy: AddressPolicy, protocol: WebhookProtocol, lookup: HostLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(notFound(), '');
        if (addresses.some(({ address }) => policy.refusal(address, protocol) !== null)) {
          return callback(new AddressRefusedError(), '');
        }
        const family = wantedFamily(options);
        const usable: LookupAddress[] = addresses
          .filter((address) => family === null || address.family === family)
          .map(({ address, family }) => ({ address, family }));
        if (usable.length === 0) return callback(notFound(), '');
        // With autoSelectFamily (Node 20's default) net asks for every address; otherwise for one.
        if (options.all) return callback(null, usable);
        return callback(null, usable[0].address, usable[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}
