/**
 * Email addresses in the common "dot-atom" form (RFC 5321/5322 without quoted local parts,
 * comments or IP-literal domains). Only the domain is case-insensitive, so only it is lowercased.
 */

export const MAX_EMAIL_LENGTH = 254;
const MAX_LOCAL_PART_LENGTH = 64;

const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TOP_LEVEL_DOMAIN = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** Returns the normalised address (domain lowercased), or undefined if it is not a valid address. */
export function normaliseEmailAddress(text: string): string | undefined {
  if (text.length > MAX_EMAIL_LENGTH) return undefined;
  const at = text.lastIndexOf('@');
  if (at <= 0) return undefined;
  const localPart = text.slice(0, at);
  const domain = text.slice(at + 1).toLowerCase();
  if (localPart.length > MAX_LOCAL_PART_LENGTH || !LOCAL_PART.test(localPart)) return undefined;
  if (domain.length > 253) return undefined;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return undefined;
  if (!TOP_LEVEL_DOMAIN.test(labels[labels.length - 1] ?? '')) return undefined;
  return `${localPart}@${domain}`;
}
