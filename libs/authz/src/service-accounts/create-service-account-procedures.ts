import type { AnyProcedure } from '@mrp/platform';
import { createServiceAccountAdminProcedures } from './service-account-procedures';
import { createServiceAccountKeyProcedures } from './service-account-key-procedures';

/** Every `serviceAccounts.*` procedure, including `serviceAccounts.keys.*`. */
export const serviceAccountProcedures: readonly AnyProcedure[] = [
  ...createServiceAccountAdminProcedures(),
  ...createServiceAccountKeyProcedures(),
];
