/**
 * The service-account surface (`serviceAccounts.*`) needs this permission and exists only while
 * this flag is on: each procedure declares both, so every door answers as for an unknown name
 * while the flag is off, to everyone, before authentication. Service-account keys are inert then.
 */
export const MANAGE_SERVICE_ACCOUNTS = 'api-keys.manage-service-accounts';
export const SERVICE_ACCOUNTS_FLAG = 'public-api.service-accounts';
