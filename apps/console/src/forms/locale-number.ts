interface Separators {
  group: string;
  decimal: string;
}

function separatorsOf(locale: string | undefined): Separators {
  const parts = new Intl.NumberFormat(locale).formatToParts(12345.6);
  return {
    group: parts.find((part) => part.type === 'group')?.value ?? ',',
    decimal: parts.find((part) => part.type === 'decimal')?.value ?? '.',
  };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Spaces as some locales group digits (no-break and narrow no-break spaces), any of which a person may type. */
const SPACES = ' \u00a0\u202f';

/** A number as the API writes it: digits, an optional decimal point, an optional exponent. */
const CANONICAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * A typed number read the way the API writes it or the way the reader's locale does (its group
 * and decimal separators, e.g. `1,200.50` in English, `1.200,50` in German). Undefined when it is
 * neither, or when the two readings disagree (`1.200` in German: one thousand two hundred, or
 * one point two?), so nothing is guessed.
 */
export function parseLocaleNumber(text: string, locale?: string): number | undefined {
  const typed = text.trim().replace(/^\u2212/, '-');
  if (typed === '') return undefined;
  const { group, decimal } = separatorsOf(locale);
  const groupPattern = SPACES.includes(group) ? `[${SPACES}]` : escape(group);
  const localePattern = new RegExp(`^[+-]?(\\d{1,3}(${groupPattern}\\d{3})+|\\d+)(${escape(decimal)}\\d+)?$`);
  const readings = new Set<number>();
  if (CANONICAL.test(typed)) readings.add(Number(typed));
  if (localePattern.test(typed)) {
    const plain = typed.replace(new RegExp(groupPattern, 'g'), '').replace(decimal, '.');
    readings.add(Number(plain));
  }
  if (readings.size !== 1) return undefined;
  const [number] = readings;
  return Number.isFinite(number) ? number : undefined;
}
