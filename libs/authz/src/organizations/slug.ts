/** Lowercase letters and digits, single dashes between them. */
export const SLUG_PATTERN = '^[a-z0-9](-?[a-z0-9])*$';
export const MAX_SLUG_LENGTH = 63;

/** "Acme Café & Co." -> "acme-cafe-co"; empty when the name has no latin letters or digits. */
export function slugFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SLUG_LENGTH + 1)
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, '');
}
