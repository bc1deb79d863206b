import { validationFailed } from '@mrp/platform';
import type { AddressPolicy, WebhookProtocol } from './address-policy';
import { ipLiteralOf, systemLookup, type HostLookup, type ResolvedAddress } from './host-lookup';

export const MAX_ENDPOINT_URL_LENGTH = 2048;

export interface CheckEndpointUrlOptions {
  lookup?: HostLookup;
}

function refuse(code: string, message: string): never {
  throw validationFailed([{ field: 'url', code, message }], message);
}

async function resolve(hostname: string, lookup: HostLookup): Promise<readonly ResolvedAddress[]> {
  try {
    return await lookup(hostname);
  } catch {
    return [];
  }
}

/**
 * Checks an endpoint URL when it is created or changed and returns it normalised. The WHATWG parser
 * turns `0x7f000001`, `2130706433` and `0177.0.0.1` into `127.0.0.1` before anything is judged; a
 * host name must resolve, and every address it resolves to must be allowed. Messages say that an
 * address is not allowed, never which one or why, so the check does not map a private network.
 * Delivery checks again on the address actually dialled (see createWebhookSender).
 */
export async function checkEndpointUrl(
  rawUrl: string,
  policy: AddressPolicy,
  { lookup = systemLookup }: CheckEndpointUrlOptions = {},
): Promise<string> {
  if (rawUrl.length > MAX_ENDPOINT_URL_LENGTH) {
    refuse('too_long', `The URL must be at most ${MAX_ENDPOINT_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    refuse('invalid_format', 'The URL must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    refuse('invalid_format', 'The URL must be an absolute http(s) URL');
  }
  if (url.username !== '' || url.password !== '') {
    refuse('invalid_format', 'The URL must not contain a user name or password');
  }
  if (url.href.length > MAX_ENDPOINT_URL_LENGTH) {
    refuse('too_long', `The URL must be at most ${MAX_ENDPOINT_URL_LENGTH} characters`);
  }
  const protocol: WebhookProtocol = url.protocol;
  const schemeRefusal = policy.schemeRefusal(protocol);
  if (schemeRefusal) refuse('not_allowed', 'The URL must use https');

  const literal = ipLiteralOf(url);
  const addresses = literal ? [literal] : (await resolve(url.hostname, lookup)).map(({ address }) => address);
  if (addresses.length === 0) refuse('unresolvable', 'The URL\'s host name does not resolve');
  const refused = addresses.filter((address) => policy.refusal(address, protocol) !== null);
  if (refused.length > 0) {
    // Refused only for being plain http: that much may be said, it is the caller's own choice.
    const httpsWouldDo = protocol === 'http:' && refused.every((address) => policy.refusal(address, 'https:') === null);
    if (httpsWouldDo) refuse('not_allowed', 'Plain http is only allowed to loopback or private-network hosts; use https');
    refuse('not_allowed', literal ? 'The URL\'s address is not allowed' : 'The URL\'s host resolves to an address that is not allowed');
  }
  return url.href;
}
