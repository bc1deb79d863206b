import type { PlatformModule } from '@mrp/platform';
import { Invite, Membership, Organization, Role, RoleGrant, User } from './identity/entities';
import { authzMigrations } from './migrations';
import { ApiKey } from './api-keys/api-key.entity';

export const authzModule: PlatformModule = {
  name: 'authz',
  entities: [Organization, User, Membership, Role, RoleGrant, Invite, ApiKey],
  migrations: authzMigrations,
};
