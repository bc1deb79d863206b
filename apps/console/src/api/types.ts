/**
 * The shapes of the procedures' answers the console reads, as the server declares them in its
 * output schemas (the console imports nothing server-side, so they are restated here).
 */

export interface OrganizationSummary {
  id: string;
  name: string;
  slug: string;
  roleKeys: string[];
}

/** `me.get` */
export interface Me {
  user: {
    id: string;
    kind: 'HUMAN' | 'SERVICE';
    email: string;
    displayName: string;
    isPlatformAdmin: boolean;
    deletionScheduledFor: string | null;
  };
  organizations: OrganizationSummary[];
  activeOrganization: { id: string; roleIds: string[]; permissions: string[] } | null;
}

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';

/** `apiKeys.list` items, `serviceAccounts.keys.list` items */
export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  fullAccess: boolean;
  permissions: string[];
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
  status: ApiKeyStatus;
}

/** `apiKeys.create`: the key plus its token, shown once. */
export interface CreatedApiKey extends ApiKey {
  token: string;
}

export interface Items<T> {
  items: T[];
}

/** `rbac.permissions.list` items */
export interface PermissionInfo {
  key: string;
  description: string;
}

/** `rbac.roles.list` items */
export interface Role {
  id: string;
  key: string;
  name: string;
  description: string;
  permissions: string[];
  builtIn: boolean;
  memberCount: number;
}

/** `serviceAccounts.list` items */
export interface ServiceAccount {
  id: string;
  email: string;
  displayName: string;
  description: string | null;
  roleKeys: string[];
  status: 'active' | 'disabled';
  disabledAt: string | null;
  createdBy: string | null;
  createdAt: string;
}
