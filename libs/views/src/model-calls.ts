import { procedureCall, validationFailed, type InvocationDeps, type ProcedureCall, type ProcedureContext, type ProcedureRegistry } from '@mrp/platform';
import type { UserNotifier } from '@mrp/authz';
import type { DataModelsProcedures, FieldOutput, RecordListOutput, RecordOutput } from '@mrp/data-models/contracts';

/**
 * What the views lib is built with: data-models' procedures are found in the registry, never
 * imported; only the types of their answers are (`@mrp/data-models/contracts`).
 */
export interface ViewsDeps {
  /** The registry that holds records.* and dataModels.* (built after this lib's procedures). */
  procedures(): ProcedureRegistry;
  invocation(): InvocationDeps;
  /** In-app notifications (the notifications lib, handed in by the runtime). */
  notifier: UserNotifier;
}

/** A model field as `dataModels.fields.list` answers it. */
export type ModelField = FieldOutput;

/** A record as `records.*` answer it. */
export type RecordView = RecordOutput;

/** A page of `records.list`. */
export type RecordPage = RecordListOutput;

export interface SelectOption {
  value: string;
  label: string;
  color?: string;
}

/**
 * Calls a data-models procedure as the caller, inside the caller's transaction (see invokeWithin);
 * its input and answer are typed by the name (data-models' contracts).
 */
export type ModelCall = ProcedureCall<DataModelsProcedures>;

export function modelCall(deps: ViewsDeps): ModelCall {
  return procedureCall<DataModelsProcedures>(() => deps.procedures(), () => deps.invocation());
}

export async function modelFields(call: ModelCall, ctx: ProcedureContext, modelKey: string): Promise<ModelField[]> {
  return (await call(ctx, 'dataModels.fields.list', { model: modelKey })).items;
}

/** The field, which must be live and of one of these types; else a validation error on `property`. */
export function requireFieldOfType(fields: readonly ModelField[], key: string, types: readonly string[], property: string): ModelField {
  const field = fields.find((candidate) => candidate.key === key);
  if (!field) throw validationFailed([{ field: property, code: 'not_found', message: `The model has no field "${key}"` }]);
  if (!types.includes(field.type)) {
    throw validationFailed([{ field: property, code: 'invalid_type', message: `Field "${key}" is ${field.type}; it must be ${types.join(' or ')}` }]);
  }
  return field;
}

export function selectOptions(field: ModelField): SelectOption[] {
  return Array.isArray(field.config.options) ? (field.config.options as SelectOption[]) : [];
}
