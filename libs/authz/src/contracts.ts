/**
 * The static types of authz's procedure inputs and answers, for code that calls the procedures by
 * name (the console over /rpc): the types of the TypeBox schemas the procedures declare, so each
 * shape is written once. Types only: nothing here runs, its imports are `import type` (lint), and
 * the schema files it reads import nothing server-side.
 */
import type { Static } from '@sinclair/typebox';
import type * as AccountInputs from './accounts/account-inputs';
import type * as MeViews from './accounts/me-view';
import type * as ApiKeyInputs from './api-keys/api-key-inputs';
import type * as ApiKeyViews from './api-keys/api-key-view';
import type * as FeatureFlagSchemas from './feature-flags/feature-flag-inputs';
import type * as OrganizationInputs from './organizations/organization-inputs';
import type * as OrganizationViews from './organizations/organization-view';
import type * as RbacInputs from './rbac/rbac-inputs';
import type * as RoleViews from './rbac/role-view';
import type * as ServiceAccountInputs from './service-accounts/service-account-inputs';
import type * as ServiceAccountViews from './service-accounts/service-account-view';
import type * as UserInputs from './users/user-inputs';
import type * as UserViews from './users/user-view';

export type { Identity, MeView } from './accounts/me-view';
export type { ApiKeyStatus, ApiKeyView, CreatedApiKey } from './api-keys/api-key-view';
export type { PermissionInfo, RoleView } from './rbac/role-view';
export type { ServiceAccountView } from './service-accounts/service-account-view';
export type { MemberView, OrganizationView, OrganizationWithMembers, PendingInvite, SentInvite } from './organizations/organization-view';
export type { UserView } from './users/user-view';

/**
 * What each authz procedure a door serves takes and answers, by name: the static types of the
 * input and output schemas it declares (`procedures.spec.ts` fails when they drift). A caller by
 * name (the console's `call`) gets both from the name alone. `featureFlags.set` is not here: its
 * input names the platform's known flags, which a types-only entry cannot reach.
 */
export interface AuthzProcedures {
  'me.get': { input: Static<typeof AccountInputs.MeGetInput>; output: Static<typeof MeViews.MeSchema> };
  'me.identity': { input: Static<typeof AccountInputs.MeIdentityInput>; output: Static<typeof MeViews.IdentitySchema> };
  'users.updateProfile': { input: Static<typeof UserInputs.UsersUpdateProfileInput>; output: Static<typeof UserViews.UserViewSchema> };
  'users.disable': { input: Static<typeof UserInputs.TargetUserInput>; output: Static<typeof UserViews.UserViewSchema> };
  'users.enable': { input: Static<typeof UserInputs.TargetUserInput>; output: Static<typeof UserViews.UserViewSchema> };
  'users.requestDeletion': { input: Static<typeof UserInputs.OwnAccountInput>; output: Static<typeof UserViews.UserViewSchema> };
  'users.cancelDeletion': { input: Static<typeof UserInputs.OwnAccountInput>; output: Static<typeof UserViews.UserViewSchema> };
  'featureFlags.list': { input: Static<typeof FeatureFlagSchemas.FeatureFlagsReadInput>; output: Static<typeof FeatureFlagSchemas.FlagStateListSchema> };
  'featureFlags.enabled': { input: Static<typeof FeatureFlagSchemas.FeatureFlagsReadInput>; output: Static<typeof FeatureFlagSchemas.EnabledFlagsSchema> };
  'organizations.create': { input: Static<typeof OrganizationInputs.OrganizationsCreateInput>; output: Static<typeof OrganizationViews.OrganizationViewSchema> };
  'organizations.get': { input: Static<typeof OrganizationInputs.OrganizationsGetInput>; output: Static<typeof OrganizationViews.OrganizationWithMembersSchema> };
  'organizations.update': { input: Static<typeof OrganizationInputs.OrganizationsUpdateInput>; output: Static<typeof OrganizationViews.OrganizationViewSchema> };
  'organizations.invite': { input: Static<typeof OrganizationInputs.OrganizationsInviteInput>; output: Static<typeof OrganizationViews.SentInviteSchema> };
  'organizations.acceptInvite': { input: Static<typeof OrganizationInputs.OrganizationsAcceptInviteInput>; output: Static<typeof OrganizationViews.AcceptedInviteSchema> };
  'organizations.listInvites': { input: Static<typeof OrganizationInputs.OrganizationsListInvitesInput>; output: Static<typeof OrganizationViews.PendingInviteListSchema> };
  'organizations.cancelInvite': { input: Static<typeof OrganizationInputs.OrganizationsCancelInviteInput>; output: Static<typeof OrganizationViews.CanceledInviteSchema> };
  'organizations.removeMember': { input: Static<typeof OrganizationInputs.OrganizationsRemoveMemberInput>; output: Static<typeof OrganizationViews.RemovedMemberSchema> };
  'rbac.permissions.list': { input: Static<typeof RbacInputs.RbacPermissionsListInput>; output: Static<typeof RoleViews.PermissionListSchema> };
  'rbac.roles.list': { input: Static<typeof RbacInputs.RbacRolesListInput>; output: Static<typeof RoleViews.RoleListSchema> };
  'rbac.roles.create': { input: Static<typeof RbacInputs.RbacRolesCreateInput>; output: Static<typeof RoleViews.RoleViewSchema> };
  'rbac.roles.update': { input: Static<typeof RbacInputs.RbacRolesUpdateInput>; output: Static<typeof RoleViews.RoleViewSchema> };
  'rbac.roles.delete': { input: Static<typeof RbacInputs.RbacRolesDeleteInput>; output: Static<typeof RoleViews.DeletedRoleSchema> };
  'rbac.roles.assign': { input: Static<typeof RbacInputs.RoleGrantInput>; output: Static<typeof RoleViews.MemberRolesSchema> };
  'rbac.roles.revoke': { input: Static<typeof RbacInputs.RoleGrantInput>; output: Static<typeof RoleViews.MemberRolesSchema> };
  'apiKeys.list': { input: Static<typeof ApiKeyInputs.ApiKeysListInput>; output: Static<typeof ApiKeyViews.ApiKeyListSchema> };
  'apiKeys.create': { input: Static<typeof ApiKeyInputs.ApiKeysCreateInput>; output: Static<typeof ApiKeyViews.CreatedApiKeySchema> };
  'apiKeys.revoke': { input: Static<typeof ApiKeyInputs.ApiKeysRevokeInput>; output: Static<typeof ApiKeyViews.ApiKeyViewSchema> };
  'serviceAccounts.list': { input: Static<typeof ServiceAccountInputs.ServiceAccountsListInput>; output: Static<typeof ServiceAccountViews.ServiceAccountListSchema> };
  'serviceAccounts.create': { input: Static<typeof ServiceAccountInputs.ServiceAccountsCreateInput>; output: Static<typeof ServiceAccountViews.ServiceAccountViewSchema> };
  'serviceAccounts.update': { input: Static<typeof ServiceAccountInputs.ServiceAccountsUpdateInput>; output: Static<typeof ServiceAccountViews.ServiceAccountViewSchema> };
  'serviceAccounts.disable': { input: Static<typeof ServiceAccountInputs.ServiceAccountByIdInput>; output: Static<typeof ServiceAccountViews.ServiceAccountViewSchema> };
  'serviceAccounts.enable': { input: Static<typeof ServiceAccountInputs.ServiceAccountByIdInput>; output: Static<typeof ServiceAccountViews.ServiceAccountViewSchema> };
  'serviceAccounts.delete': { input: Static<typeof ServiceAccountInputs.ServiceAccountByIdInput>; output: Static<typeof ServiceAccountViews.DeletedServiceAccountSchema> };
  'serviceAccounts.keys.list': { input: Static<typeof ServiceAccountInputs.ServiceAccountKeysListInput>; output: Static<typeof ApiKeyViews.ApiKeyListSchema> };
  'serviceAccounts.keys.create': { input: Static<typeof ServiceAccountInputs.ServiceAccountKeysCreateInput>; output: Static<typeof ApiKeyViews.CreatedApiKeySchema> };
  'serviceAccounts.keys.revoke': { input: Static<typeof ServiceAccountInputs.ServiceAccountKeysRevokeInput>; output: Static<typeof ApiKeyViews.ApiKeyViewSchema> };
}
