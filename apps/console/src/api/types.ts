import type { ApiKeyView, MeView, RoleView, ServiceAccountView } from '@mrp/authz/contracts';

/** The answers of the authz procedures the console reads: their own output types. */

export type { ApiKeyStatus, CreatedApiKey, PermissionInfo } from '@mrp/authz/contracts';

/** `me.get` */
export type Me = MeView;

/** An organization of `me.get`, with the roles the session holds there. */
export type OrganizationSummary = MeView['organizations'][number];

/** `apiKeys.list` items, `serviceAccounts.keys.list` items */
export type ApiKey = ApiKeyView;

export interface Items<T> {
  items: T[];
}

/** `rbac.roles.list` items */
export type Role = RoleView;

/** `serviceAccounts.list` items */
export type ServiceAccount = ServiceAccountView;
