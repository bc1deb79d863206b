import type { Result } from '../core/result';
import { fail, ok } from '../core/result';
import { exceedsLength } from '../values/text';

/** Validates and normalises one operand value (never null or undefined). */
export type OperandValidator = (value: unknown, path: string) => Result<unknown>;

/** How the operands of a condition on one field are checked. */
export interface OperandRules {
  /** For eq, neq, lt, lte, gt, gte, and each value of in / notIn; also `contains` on multi-valued fields. */
  readonly operand: OperandValidator;
  /** For contains / startsWith on text: a fragment, so formats such as URL are not enforced. */
  readonly fragment?: OperandValidator;
}

export const noOperand: OperandValidator = (_value, path) => fail(path, 'invalid_format', 'This field takes no operand.');

function textFragment(maxLength: number): OperandValidator {
  return (value, path) => {
    if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be a string.');
    if (value === '') return fail(path, 'invalid_format', 'Must not be empty; use isEmpty to find empty values.');
    return exceedsLength(value, maxLength)
      ? fail(path, 'too_long', `Must be at most ${maxLength} characters.`)
      : ok(value);
  };
}

/** Text filters accept any fragment up to the field's maximum length; exact values may need a format. */
export function textRules(maxLength: number, exactValue?: OperandValidator): OperandRules {
  const fragment = textFragment(maxLength);
  return { operand: exactValue ?? fragment, fragment };
}
