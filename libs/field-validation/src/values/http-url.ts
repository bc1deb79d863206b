import { containsControlCharacter } from './text';

/**
 * A deterministic validator for absolute http(s) URLs. It is hand-written rather than built on the
 * WHATWG `URL` class so that browsers and the server accept exactly the same strings, and so that
 * nothing is silently "repaired" (URL() would percent-encode spaces, drop tabs, and so on).
 */

export const MAX_URL_LENGTH = 2048;

const SCHEME = /^https?:\/\//i;
/** Whitespace (including Unicode spaces) and characters RFC 3986 never allows unencoded. */
const FORBIDDEN_CHARACTER = /[\s"<>\\^`{|}]/u;
const MALFORMED_PERCENT_ENCODING = /%(?![0-9a-fA-F]{2})/;
const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const IPV4_ADDRESS = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/i;
const PORT = /^\d{1,5}$/;

export function isHttpUrl(text: string): boolean {
  if (text.length > MAX_URL_LENGTH || !SCHEME.test(text)) return false;
  if (FORBIDDEN_CHARACTER.test(text) || containsControlCharacter(text)) return false;
  if (MALFORMED_PERCENT_ENCODING.test(text)) return false;

  const afterScheme = text.slice(text.indexOf('//') + 2);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterScheme : afterScheme.slice(0, authorityEnd);
  // Credentials in links are a phishing vector (`https://bank.com@evil.example`), so they are refused.
  if (authority.includes('@')) return false;

  const portSeparator = authority.startsWith('[') ? authority.indexOf(']:') + 1 : authority.lastIndexOf(':');
  const host = portSeparator > 0 ? authority.slice(0, portSeparator) : authority;
  const port = portSeparator > 0 ? authority.slice(portSeparator + 1) : undefined;
  if (port !== undefined && !(PORT.test(port) && Number(port) >= 1 && Number(port) <= 65_535)) return false;
  return isValidHost(host);
}

function isValidHost(host: string): boolean {
  if (host.startsWith('[')) {
    return IPV6_LITERAL.test(host) && host.split(':').length >= 3;
  }
  const ipv4 = IPV4_ADDRESS.exec(host);
  if (ipv4) {
    return ipv4.slice(1).every((octet) => Number(octet) <= 255);
  }
  if (host.length === 0 || host.length > 253) return false;
  const labels = host.split('.');
  // An all-numeric last label is an (invalid) IP address, not a name.
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) return false;
  return labels.every((label) => HOST_LABEL.test(label));
}
