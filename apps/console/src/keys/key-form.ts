import { checkText } from '../forms/text-rules';

export type Access = 'full' | 'limited';
export type ExpiryChoice = 'never' | '7' | '30' | '90' | '365' | 'custom';

export const EXPIRY_OPTIONS: Array<{ value: ExpiryChoice; label: string }> = [
  { value: 'never', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
  { value: 'custom', label: 'On a date…' },
];

export interface KeyFormValues {
  name: string;
  access: Access;
  permissions: ReadonlySet<string>;
  expiry: ExpiryChoice;
  /** `YYYY-MM-DD` from a date input, for `expiry: 'custom'`. */
  expiryDate: string;
}

export const EMPTY_KEY_FORM: KeyFormValues = { name: '', access: 'limited', permissions: new Set(), expiry: 'never', expiryDate: '' };

/** The input of `apiKeys.create` (and `serviceAccounts.keys.create`, with the account's id). */
export interface KeyCreateInput {
  name: string;
  fullAccess: boolean;
  permissions?: string[];
  expiresAt?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * When the key stops working: a preset counts from now; a chosen date means the end of that day
 * in the reader's zone, so "expires on the 30th" still works all of the 30th.
 */
export function expiresAtFor(expiry: ExpiryChoice, expiryDate: string, now: Date): Date | null | 'invalid' {
  if (expiry === 'never') return null;
  if (expiry !== 'custom') return new Date(now.getTime() + Number(expiry) * DAY_MS);
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(expiryDate);
  if (!match) return 'invalid';
  const [, year, month, day] = match.map(Number) as [number, number, number, number];
  const endOfDay = new Date(year, month - 1, day, 23, 59, 59, 999);
  return Number.isNaN(endOfDay.getTime()) || endOfDay.getMonth() !== month - 1 ? 'invalid' : endOfDay;
}

/**
 * Checks the form as the server will (name, a limited key's permissions among those offered, an
 * expiry in the future) and builds the input; the server checks again and has the last word.
 */
export function checkKeyForm(
  values: KeyFormValues,
  offered: ReadonlySet<string>,
  now: Date = new Date(),
): { errors: Record<string, string>; input?: KeyCreateInput } {
  const errors: Record<string, string> = {};
  const nameError = checkText(values.name, { required: true, maxLength: 100 });
  if (nameError) errors.name = nameError;
  const permissions = [...values.permissions].filter((permission) => offered.has(permission)).sort();
  if (values.access === 'limited' && permissions.length === 0) errors.permissions = 'Choose at least one permission for a limited key';
  const expiresAt = expiresAtFor(values.expiry, values.expiryDate, now);
  if (expiresAt === 'invalid') errors.expiresAt = 'Choose a date';
  else if (expiresAt && expiresAt.getTime() <= now.getTime()) errors.expiresAt = 'Choose a date in the future';
  if (Object.keys(errors).length > 0) return { errors };
  return {
    errors,
    input: {
      name: values.name.trim(),
      fullAccess: values.access === 'full',
      ...(values.access === 'limited' ? { permissions } : {}),
      ...(expiresAt instanceof Date ? { expiresAt: expiresAt.toISOString() } : {}),
    },
  };
}

/** How a key's access reads in a list. */
export function describeAccess(key: { fullAccess: boolean; permissions: string[] }): string {
  if (key.fullAccess) return 'Full access';
  return `Limited: ${key.permissions.length} permission${key.permissions.length === 1 ? '' : 's'}`;
}
