import type { PlatformModule } from '@mrp/platform';
import { Invite, Membership, Organization, Role, RoleGrant, User } from './identity/entities';
import { authzMigrations } from './migrations';

export const authzModule: PlatformModule = {
  name: 'authz',
  entities: [Organization, User, Membership, Role, RoleGrant, Invite],
  migrations: authzMigrations,
};
