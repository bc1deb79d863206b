import type { EntityManager } from '@mikro-orm/postgresql';
import { validationFailed, type ErrorDetail } from '@mrp/platform';
import { checkFormulaFields, validateFieldConfig, type FieldDefinition, type FieldType } from '@mrp/field-validation';
import { DataModel } from '../models/entities';
import { errorDetail } from '../records/record-data';

/** Validates a field configuration for a type and returns it with defaults filled in. */
export function resolveConfig(type: FieldType, config: unknown): Record<string, unknown> {
  const result = validateFieldConfig(type, config ?? {});
  if (!result.ok) throw validationFailed(result.errors.map(errorDetail));
  return result.value;
}

/** Settings that bear on no stored value: DATETIME `reminders` only say when to notify. */
const VALUE_NEUTRAL_CONFIG_KEYS: ReadonlySet<string> = new Set(['reminders']);

/** A configuration without its value-neutral settings: what decides whether stored values still fit. */
export function valueRules(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([key]) => !VALUE_NEUTRAL_CONFIG_KEYS.has(key)));
}

/** RELATION fields must point at a live model of the same organization. */
export async function assertRelationTarget(em: EntityManager, organizationId: string, type: FieldType, config: Record<string, unknown>): Promise<void> {
  if (type !== 'RELATION') return;
  const key = String(config['targetModel']);
  if (!(await em.findOne(DataModel, { organizationId, key, archivedAt: null }))) {
    throw validationFailed([{ field: 'config.targetModel', code: 'not_found', message: `No data model with key "${key}"` }]);
  }
}

/** Every formula of the model must still resolve (references, cycles, result types) after a change. */
export function assertFormulasHold(definitions: FieldDefinition[]): void {
  const errors = checkFormulaFields(definitions);
  if (errors.length > 0) throw validationFailed(errors.map(errorDetail), 'A formula of this model would break');
}

export function refuse(field: string, code: string, message: string): never {
  const detail: ErrorDetail = { field, code, message };
  throw validationFailed([detail]);
}
