import type { RowAccessRoles } from '@mrp/authz';
import { boundRoleIds } from './record-access';

/**
 * A role grants row access while some record (in the bin too: it can come back) is restricted to
 * it. Roles belong to one organization, so their ids alone decide; `record_access_role` indexes it.
 */
export const recordRowAccessRoles: RowAccessRoles = {
  async grantingRowAccess(em, _organizationId, roleIds) {
    const ids = boundRoleIds(roleIds);
    if (ids.length === 0) return [];
    const rows = await em.execute<Array<{ role_id: string }>>(
      'SELECT DISTINCT role_id FROM record_access WHERE role_id = ANY(ARRAY[?]::uuid[])',
      [ids],
    );
    return rows.map((row) => row.role_id);
  },
};
