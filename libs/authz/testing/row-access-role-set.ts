import type { RowAccessRoles } from '../src/access/grant-ceiling';

/** Stands for data-models' records in authz's tests: the roles a test says some record is restricted to. */
export class RowAccessRoleSet implements RowAccessRoles {
  readonly roleIds = new Set<string>();

  async grantingRowAccess(_em: unknown, _organizationId: string, roleIds: readonly string[]): Promise<string[]> {
    return roleIds.filter((roleId) => this.roleIds.has(roleId));
  }
}
