import type { RowAccessRoles } from '../access/grant-ceiling';
import { createServiceAccountAdminProcedures } from './service-account-procedures';
import { createServiceAccountKeyProcedures } from './service-account-key-procedures';

/** Every `serviceAccounts.*` procedure, including `serviceAccounts.keys.*`. */
export function createServiceAccountProcedures(deps: { rowAccessRoles: RowAccessRoles }) {
  return [...createServiceAccountAdminProcedures(deps), ...createServiceAccountKeyProcedures(deps)];
}
