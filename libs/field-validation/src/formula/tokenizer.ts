import { FIELD_KEY_PATTERN } from '../core/field-definition';
import { unstorableText } from '../values/text';
import type { BinaryOperator } from './ast';
import { FormulaSyntaxError } from './syntax-error';

export type Token = { readonly position: number } & (
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'text'; readonly value: string }
  | { readonly kind: 'field'; readonly key: string }
  | { readonly kind: 'identifier'; readonly name: string }
  | { readonly kind: 'operator'; readonly operator: BinaryOperator }
  | { readonly kind: 'punctuation'; readonly symbol: '(' | ')' | ',' }
  | { readonly kind: 'end' }
);

const WHITESPACE = /[ \t\r\n]/;
const NUMBER = /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;
const IDENTIFIER_CHARACTER = /[A-Za-z0-9_.]/;

/** Longest operators first so `<=` is not read as `<` followed by `=`. `<>` is a spreadsheet alias of `!=`. */
const OPERATORS: ReadonlyArray<readonly [string, BinaryOperator]> = [
  ['<=', '<='],
  ['>=', '>='],
  ['!=', '!='],
  ['<>', '!='],
  ['<', '<'],
  ['>', '>'],
  ['=', '='],
  ['+', '+'],
  ['-', '-'],
  ['*', '*'],
  ['/', '/'],
  ['%', '%'],
  ['&', '&'],
];

const STRING_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', n: '\n', r: '\r', t: '\t' };

/** Describes a character for an error message without producing invisible or confusing output. */
export function describeCharacter(character: string): string {
  return JSON.stringify(character);
}

/** Splits an expression into tokens, ending with an `end` token. Throws FormulaSyntaxError. */
export function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;

  while (position < expression.length) {
    const character = expression.charAt(position);
    if (WHITESPACE.test(character)) {
      position++;
      continue;
    }
    const start = position;

    if (character >= '0' && character <= '9') {
      NUMBER.lastIndex = position;
      const literal = NUMBER.exec(expression)?.[0] ?? '';
      position += literal.length;
      if (IDENTIFIER_CHARACTER.test(expression.charAt(position))) {
        throw new FormulaSyntaxError(`Malformed number at character ${start + 1}.`, start);
      }
      const value = Number(literal);
      if (!Number.isFinite(value)) throw new FormulaSyntaxError(`Number too large at character ${start + 1}.`, start);
      tokens.push({ kind: 'number', value, position: start });
      continue;
    }

    if (character === '"') {
      const { value, end } = readString(expression, position);
      tokens.push({ kind: 'text', value, position: start });
      position = end;
      continue;
    }

    if (character === '{') {
      const close = expression.indexOf('}', position);
      if (close === -1) throw new FormulaSyntaxError(`Unclosed field reference at character ${start + 1}.`, start);
      const key = expression.slice(position + 1, close);
      if (!FIELD_KEY_PATTERN.test(key)) {
        throw new FormulaSyntaxError(
          `Invalid field reference at character ${start + 1}: field keys use lowercase letters, digits and underscores.`,
          start,
        );
      }
      tokens.push({ kind: 'field', key, position: start });
      position = close + 1;
      continue;
    }

    IDENTIFIER.lastIndex = position;
    const identifier = IDENTIFIER.exec(expression)?.[0];
    if (identifier !== undefined) {
      tokens.push({ kind: 'identifier', name: identifier.toUpperCase(), position: start });
      position += identifier.length;
      continue;
    }

    if (character === '(' || character === ')' || character === ',') {
      tokens.push({ kind: 'punctuation', symbol: character, position: start });
      position++;
      continue;
    }

    const operator = OPERATORS.find(([symbol]) => expression.startsWith(symbol, position));
    if (operator) {
      tokens.push({ kind: 'operator', operator: operator[1], position: start });
      position += operator[0].length;
      continue;
    }

    throw new FormulaSyntaxError(
      `Unexpected character ${describeCharacter(character)} at character ${start + 1}.`,
      start,
    );
  }

  tokens.push({ kind: 'end', position });
  return tokens;
}

/** Reads a double-quoted string starting at `start`; supports \" \\ \/ \n \r \t and \uXXXX. */
function readString(expression: string, start: number): { value: string; end: number } {
  let value = '';
  let position = start + 1;
  while (position < expression.length) {
    const character = expression.charAt(position);
    if (character === '"') {
      // A result holding such text could not be stored with its record.
      if (unstorableText(value) !== undefined) {
        throw new FormulaSyntaxError(`The string starting at character ${start + 1} holds U+0000 or a lone surrogate.`, start);
      }
      return { value, end: position + 1 };
    }
    if (character !== '\\') {
      value += character;
      position++;
      continue;
    }
    const escape = expression.charAt(position + 1);
    if (escape === 'u') {
      const hex = expression.slice(position + 2, position + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
        throw new FormulaSyntaxError(`Invalid \\u escape at character ${position + 1}.`, position);
      }
      value += String.fromCharCode(parseInt(hex, 16));
      position += 6;
      continue;
    }
    const replacement = Object.hasOwn(STRING_ESCAPES, escape) ? STRING_ESCAPES[escape] : undefined;
    if (replacement === undefined) {
      throw new FormulaSyntaxError(`Invalid escape sequence at character ${position + 1}.`, position);
    }
    value += replacement;
    position += 2;
  }
  throw new FormulaSyntaxError(`Unterminated string starting at character ${start + 1}.`, start);
}
