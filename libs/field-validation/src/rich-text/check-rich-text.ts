import { Parser } from 'htmlparser2';
import { containsControlCharacter } from '../values/text';
import { ALLOWED_ELEMENTS, isAllowedAttribute } from './allowlist';
import { isAllowedHref } from './link-href';

export type RichTextCheck = { ok: true } | { ok: false; reason: string };

/** Whitespace controls HTML knows; NUL and other controls are handled inconsistently by parsers. */
const HTML_WHITESPACE_CONTROLS = '\t\n\f\r';
/** A well-formed end tag as browsers tokenise it; `</ p>` or `</p x>` would become something else. */
const END_TAG = /<\/[a-zA-Z][a-zA-Z0-9]*[\t\n\f\r ]*>/y;

/** Names come from the input; keep error messages short whatever was submitted. */
const shown = (name: string): string => (name.length > 32 ? `${name.slice(0, 32)}…` : name);

/**
 * Checks that an HTML fragment only uses the allow-listed elements and attributes. Nothing is
 * rewritten: the stored HTML is exactly what the client sent, so the check must be strict.
 *
 * Besides the allow-list, every character of the input must belong to a token that the parser
 * recognised as an allowed tag or as text, and raw text must not contain `<`. That closes the gap
 * between this parser and the browser's (stray `</div>`, unterminated `<a href=...`, `</ p>`,
 * `<scr<script>ipt>`): such input is refused instead of being interpreted differently later.
 */
export function checkRichText(html: string): RichTextCheck {
  if (containsControlCharacter(html, HTML_WHITESPACE_CONTROLS)) {
    return { ok: false, reason: 'control characters are not allowed.' };
  }

  let problem: string | undefined;
  const reject = (reason: string): void => {
    problem ??= reason;
  };
  /** Index of the first character not yet covered by a recognised token. */
  let covered = 0;
  const cover = (start: number, end: number): void => {
    if (start > covered) reject('markup that is not an allowed tag (for example a stray end tag).');
    covered = Math.max(covered, end);
  };

  let seenAttributes = new Set<string>();
  let openingTag: string | undefined;

  const parser = new Parser(
    {
      onopentagname(name) {
        if (!ALLOWED_ELEMENTS.has(name)) reject(`the <${shown(name)}> element is not allowed.`);
        openingTag = name;
        seenAttributes = new Set();
      },
      onattribute(name, value) {
        const element = openingTag ?? '';
        if (!isAllowedAttribute(element, name)) {
          reject(`the "${shown(name)}" attribute is not allowed on <${shown(element)}>.`);
        } else if (seenAttributes.has(name)) {
          reject(`the "${name}" attribute is repeated.`);
        } else if (name === 'href' && !isAllowedHref(value)) {
          reject('links must be absolute http(s) URLs or mailto: addresses.');
        }
        seenAttributes.add(name);
      },
      onopentag(_name, _attributes, isImplied) {
        if (!isImplied) cover(parser.startIndex, parser.endIndex + 1);
        openingTag = undefined;
      },
      onclosetag(_name, isImplied) {
        if (isImplied) return;
        END_TAG.lastIndex = parser.startIndex;
        const endTag = END_TAG.exec(html);
        if (!endTag) reject('malformed end tag.');
        else cover(parser.startIndex, parser.startIndex + endTag[0].length);
      },
      ontext() {
        const raw = html.slice(parser.startIndex, parser.endIndex + 1);
        if (raw.includes('<')) reject('a literal "<" must be written as &lt;.');
        cover(parser.startIndex, parser.endIndex + 1);
      },
      oncomment() {
        reject('HTML comments are not allowed.');
      },
      oncdatastart() {
        reject('CDATA sections are not allowed.');
      },
      onprocessinginstruction() {
        reject('doctype declarations and processing instructions are not allowed.');
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false },
  );
  parser.end(html);

  if (problem === undefined && openingTag !== undefined) problem = 'the HTML ends inside an unfinished tag.';
  if (problem === undefined && covered < html.length) problem = 'unfinished or unrecognised markup at the end.';
  return problem === undefined ? { ok: true } : { ok: false, reason: problem };
}
