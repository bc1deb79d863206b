import { validateFieldConfig, type SelectOption } from '@mrp/field-validation';
import { keyFromName } from '../data-models/field-config-form';
import { checkText } from '../forms/text-rules';

export interface ColumnErrors {
  id?: string;
  label?: string;
  /** Refusals of the field's settings as a whole (too many options). */
  general?: string;
}

/** A column id suggested from its label: `In review` -> `in_review`. */
export const columnIdFromLabel = (label: string) => keyFromName(label).slice(0, 100);

/**
 * A column added or renamed, checked as the server will: its label as the procedure's input, and
 * the board field's options after the change by field-validation's own SELECT rules (unique
 * values, one line, lengths), so what the browser passes the server passes too.
 */
export function checkColumn(config: Record<string, unknown>, options: readonly SelectOption[], at: number): ColumnErrors {
  const errors: ColumnErrors = {};
  const changed = options[at];
  const label = checkText(changed?.label ?? '', { required: true, maxLength: 200 });
  if (label) errors.label = label;
  if (changed && changed.value.trim() === '') errors.id = 'Required';
  const checked = validateFieldConfig('SELECT', { ...config, options });
  if (!checked.ok) {
    for (const error of checked.errors) {
      const match = /options\[(\d+)\]\.(value|label)/.exec(error.field);
      if (match && Number(match[1]) === at) {
        const key = match[2] === 'value' ? 'id' : 'label';
        errors[key] ??= error.message;
      } else if (!match) errors.general ??= error.message;
    }
  }
  return errors;
}
