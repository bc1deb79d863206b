import { procedureCall, systemPrincipal, type InvocationDeps, type ProcedureContext, type ProcedureRegistry } from '@mrp/platform';
import type { DataModelsProcedures } from '@mrp/data-models/contracts';
import type { ActionInputValue } from './automation-schemas';
import type { TargetModel } from './check-targets';

/**
 * The organization's live models with their fields, through data-models' own `dataModels.catalog`
 * (found in the registry, never its tables), when any action writes records; else nothing to read.
 * It is read for the check, not for the caller: whoever may manage automations learns whether the
 * models and fields their actions name exist, and nothing else of them.
 */
export async function readTargetModels(
  ctx: ProcedureContext<'organization'>,
  deps: { procedures(): ProcedureRegistry; invocation(): InvocationDeps },
  actions: readonly ActionInputValue[],
): Promise<ReadonlyMap<string, TargetModel> | undefined> {
  if (!actions.some((action) => action.type !== 'notify')) return undefined;
  const call = procedureCall<DataModelsProcedures>(() => deps.procedures(), () => deps.invocation());
  const catalog = await call(ctx, 'dataModels.catalog', {}, {
    principal: systemPrincipal('automation-definition-check', { organizationId: ctx.organizationId, permissions: ['data-models.read'] }),
  });
  return new Map(catalog.models.map((model) => [model.key, { key: model.key, fields: model.fields }]));
}
