/**
 * The static types of authz's procedure answers, for code that calls them by name (the console
 * over /rpc): the types of the TypeBox schemas the procedures declare, so each shape is written
 * once. Types only: nothing here runs, its imports are `import type` (lint), and the schema files
 * it reads import nothing server-side.
 */
export type { MeView } from './accounts/me-view';
export type { ApiKeyStatus, ApiKeyView, CreatedApiKey } from './api-keys/api-key-view';
export type { PermissionInfo, RoleView } from './rbac/role-view';
export type { ServiceAccountView } from './service-accounts/service-account-view';
export type { MemberView, OrganizationView, OrganizationWithMembers, PendingInvite, SentInvite } from './organizations/organization-view';
