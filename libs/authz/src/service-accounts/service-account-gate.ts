import { notFound, type FeatureFlagStore, type ProcedureContext } from '@mrp/platform';
import { assertNotActingWithApiKey } from '../api-keys/api-key-procedures';

export const MANAGE_SERVICE_ACCOUNTS = 'api-keys.manage-service-accounts';
export const SERVICE_ACCOUNTS_FLAG = 'public-api.service-accounts';

export interface ServiceAccountProcedureDeps {
  featureFlags: Pick<FeatureFlagStore, 'isEnabled'>;
}

/**
 * Opens the service-account surface. While the flag is off it does not exist: every procedure
 * answers exactly what /rpc answers for an unknown name, whoever asks. That is why these
 * procedures declare `permission: null` and check `api-keys.manage-service-accounts` here,
 * after the flag: a declared permission would be checked first and turn the 404 into a 403.
 */
export async function openServiceAccountSurface(
  ctx: ProcedureContext<'organization'>,
  procedureName: string,
  deps: ServiceAccountProcedureDeps,
): Promise<void> {
  if (!(await deps.featureFlags.isEnabled(SERVICE_ACCOUNTS_FLAG))) throw notFound(`Procedure ${procedureName}`);
  ctx.requirePermission(MANAGE_SERVICE_ACCOUNTS);
  assertNotActingWithApiKey(ctx.principal);
}
