import { randomBytes } from 'node:crypto';

/** `.invalid` is reserved (RFC 2606): mail to a service account can never be delivered. */
export const SERVICE_ACCOUNT_EMAIL_DOMAIN = 'service-accounts.invalid';

export { SERVICE_ACCOUNT_ID_PATTERN } from './service-account-inputs';

/**
 * `svc_` + 128 random bits in lowercase hex. Lowercase because the address is derived from the id
 * and emails are unique case-insensitively; the `users` CHECK ties the prefix to kind SERVICE.
 */
export function newServiceAccountId(): string {
  return `svc_${randomBytes(16).toString('hex')}`;
}

export function serviceAccountEmail(serviceAccountId: string): string {
  return `${serviceAccountId}@${SERVICE_ACCOUNT_EMAIL_DOMAIN}`;
}
