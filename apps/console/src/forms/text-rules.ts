import { unstorableText } from '@mrp/field-validation';

export interface TextRules {
  required?: boolean;
  maxLength?: number;
}

/**
 * The checks the server makes on a plain text input, made before sending: required (not blank),
 * a length limit, and field-validation's own rule for text PostgreSQL cannot store, so the
 * browser and the server refuse the same text.
 */
export function checkText(value: string, { required = false, maxLength }: TextRules = {}): string | undefined {
  if (required && value.trim() === '') return 'Required';
  if (maxLength !== undefined && value.length > maxLength) return `At most ${maxLength} characters`;
  const unstorable = unstorableText(value);
  if (unstorable) return 'Contains a character that cannot be stored (a null character or a broken surrogate)';
  return undefined;
}

/** The first message per field, of the checks that failed; empty when all pass. */
export function collectErrors(checks: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(checks).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
