/** Characters Unicode treats as mandatory line breaks (LF, VT, FF, CR, NEL, LS, PS). */
const LINE_BREAK = /[\n\v\f\r\u0085\u2028\u2029]/;


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
