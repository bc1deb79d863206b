import type { FieldDefinition, ModelFields } from '../core/field-definition';
import { TITLE_FIELD_KEY } from '../core/field-definition';
import type { Result } from '../core/result';
import { ok } from '../core/result';
import { dateTimeOperand } from '../field-types/date';
import { validateRecordId } from '../field-types/relation';
import { TEXT_MAX_LENGTH, textHandler } from '../field-types/text';
import { compileDefinition } from '../field-types/validate-field';
import type { FilterOp } from './filter-ops';
import { opsForField } from './filter-ops';
import { textRules, type OperandRules } from './operand-rules';
import { isSystemFilterField, SYSTEM_FILTER_FIELDS } from './system-fields';

/** What a filter condition may do with one field. */
export interface FilterTarget extends OperandRules {
  readonly ops: readonly FilterOp[];
}

/** Operand rules for a model field: its type's handler declares them, from its (validated) configuration. */
function modelFieldOperandRules(field: FieldDefinition): Result<OperandRules> {
  const compiled = compileDefinition(field);
  return compiled.ok ? ok(compiled.value.filterOperands()) : compiled;
}

function titleMaxLength(model: ModelFields): number {
  const title = model.visible.get(TITLE_FIELD_KEY);
  const config = title ? textHandler.parseConfig(title.config) : undefined;
  return config?.ok ? config.value.maxLength : TEXT_MAX_LENGTH;
}

/**
 * The filter target for a key: a system column or a visible model field. undefined when the key
 * is unknown (archived fields are unknown: they are invisible).
 */
export function resolveFilterTarget(key: string, model: ModelFields): Result<FilterTarget> | undefined {
  if (isSystemFilterField(key)) {
    const { type, ops } = SYSTEM_FILTER_FIELDS[key];
    switch (type) {
      case 'DATETIME':
        return ok({ ops, operand: dateTimeOperand });
      case 'UUID':
        return ok({ ops, operand: validateRecordId });
      case 'TEXT':
        return ok({ ...textRules(titleMaxLength(model)), ops });
    }
  }
  const field = model.visible.get(key);
  if (!field) return undefined;
  const target = modelFieldOperandRules(field);
  return target.ok ? ok({ ...target.value, ops: opsForField(field) }) : target;
}
