import type { AnyProcedure } from '@mrp/platform';
import type { ServiceAccountProcedureDeps } from './service-account-gate';
import { createServiceAccountAdminProcedures } from './service-account-procedures';
import { createServiceAccountKeyProcedures } from './service-account-key-procedures';

/** Every `serviceAccounts.*` procedure, including `serviceAccounts.keys.*`. */
export function createServiceAccountProcedures(deps: ServiceAccountProcedureDeps): AnyProcedure[] {
  return [...createServiceAccountAdminProcedures(deps), ...createServiceAccountKeyProcedures(deps)];
}
