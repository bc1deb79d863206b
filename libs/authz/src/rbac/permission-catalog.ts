/** Organization-scoped permissions, `<module>.<key>`. */
export const PERMISSIONS = {
  'organization.manage': 'Rename the organization and change its settings',
  'members.manage': 'Invite and remove members',
  'rbac.manage': 'Create, change and assign roles',
  'api-keys.manage': 'Create and revoke your own API keys',
  'api-keys.manage-service-accounts': 'Administer service accounts and their keys',
  'data-models.read': 'See Data Models and their fields',
  'data-models.manage': 'Create and change Data Models and fields',
  'records.read': 'Read records',
  'records.create': 'Create records',
  'records.update': 'Update records',
  'records.delete': 'Soft-delete and restore records',
  'records.purge': 'Permanently delete records',
  'records.manage-access': 'Restrict records to roles',
  'webhooks.manage': 'Manage webhook endpoints and deliveries',
  'automations.manage': 'Manage automations',
} as const;

export type Permission = keyof typeof PERMISSIONS;

export const ALL_PERMISSIONS = Object.keys(PERMISSIONS) as Permission[];

export function isPermission(value: string): value is Permission {
  return Object.prototype.hasOwnProperty.call(PERMISSIONS, value);
}

export interface BuiltInRole {
  key: 'owner' | 'admin' | 'member' | 'read-only';
  name: string;
  description: string;
  permissions: readonly Permission[];
}

export const BUILT_IN_ROLES: readonly BuiltInRole[] = [
  { key: 'owner', name: 'Owner', description: 'Everything', permissions: ALL_PERMISSIONS },
  {
    key: 'admin',
    name: 'Admin',
    description: 'Everything but organization settings',
    permissions: ALL_PERMISSIONS.filter((permission) => permission !== 'organization.manage'),
  },
  {
    key: 'member',
    name: 'Member',
    description: 'Reads and writes records',
    permissions: ['data-models.read', 'records.read', 'records.create', 'records.update', 'records.delete', 'api-keys.manage'],
  },
  {
    key: 'read-only',
    name: 'Read-only',
    description: 'Reads records',
    permissions: ['data-models.read', 'records.read', 'api-keys.manage'],
  },
];
