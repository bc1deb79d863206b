/** Characters Unicode treats as mandatory line breaks (LF, VT, FF, CR, NEL, LS, PS), as regex class members. */
const LINE_BREAK_CHARACTERS = '\\n\\v\\f\\r\\u0085\\u2028\\u2029';
const LINE_BREAK = new RegExp(`[${LINE_BREAK_CHARACTERS}]`);

/** U+0000 as a regex class member: the one character PostgreSQL refuses in text (see `unstorableText`). */
const NUL_CHARACTER = '\\u0000';

/** A JSON Schema `pattern` (ECMA-262) for text PostgreSQL can store: without U+0000. */
export const STORABLE_TEXT_PATTERN = `^[^${NUL_CHARACTER}]*$`;

/** A JSON Schema `pattern` (ECMA-262) for storable text without line breaks. */
export const SINGLE_LINE_PATTERN = `^[^${NUL_CHARACTER}${LINE_BREAK_CHARACTERS}]*$`;

export function containsLineBreak(text: string): boolean {
  return LINE_BREAK.test(text);
}

/**
 * Whether `text` has a C0 control character (U+0000-U+001F) or DEL, other than those listed in
 * `except`. Written as a code-unit scan because control characters in regex literals are lint
 * errors (and easy to misread).
 */
export function containsControlCharacter(text: string, except = ''): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if ((code <= 0x1f || code === 0x7f) && !except.includes(text.charAt(index))) return true;
  }
  return false;
}

/**
 * Length in Unicode code points, which is what users (and PostgreSQL's char_length) count:
 * an emoji is one character, not two UTF-16 units.
 */
export function codePointLength(text: string): number {
  let length = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    const isHighSurrogate = unit >= 0xd800 && unit <= 0xdbff;
    if (isHighSurrogate && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    length++;
  }
  return length;
}

/** Whether `text` has more than `maxLength` code points, without counting huge strings in full. */
export function exceedsLength(text: string, maxLength: number): boolean {
  // A string never has more code points than UTF-16 units, and never fewer than half of them.
  if (text.length <= maxLength) return false;
  if (text.length > maxLength * 2) return true;
  return codePointLength(text) > maxLength;
}

/** Any UTF-16 surrogate unit; matched without the `u` flag, so each unit is seen on its own. */
const SURROGATE = /[\ud800-\udfff]/;

const NUL = new RegExp(`[${NUL_CHARACTER}]`);

/** Why PostgreSQL cannot keep a string exactly as it is. */
export type UnstorableText = 'nul' | 'lone_surrogate';

/**
 * Whether `text` can be stored and returned unchanged. PostgreSQL refuses U+0000 in `text` and in
 * JSONB, and a lone surrogate has no UTF-8 form: JSONB refuses its `\ud800` escape and a `text`
 * parameter would come back as U+FFFD. Both are refused, never altered.
 */
export function unstorableText(text: string): UnstorableText | undefined {
  if (NUL.test(text)) return 'nul';
  // Well-formed text rarely has surrogates at all; only then is each one checked for its partner.
  if (!SURROGATE.test(text)) return undefined;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(index + 1);
    if (unit > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return 'lone_surrogate';
    index++;
  }
  return undefined;
}

/** The sentence an error gives for text that cannot be stored. */
export const UNSTORABLE_TEXT_MESSAGES: Readonly<Record<UnstorableText, string>> = {
  nul: 'Must not contain the character U+0000 (NUL).',
  lone_surrogate: 'Must be well-formed Unicode: a lone surrogate (U+D800 to U+DFFF) cannot be stored.',
};
