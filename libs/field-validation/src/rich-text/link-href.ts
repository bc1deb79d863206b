import { isHttpUrl } from '../values/http-url';
import { containsControlCharacter } from '../values/text';

/**
 * Whether a (entity-decoded) href is a link this library allows: an absolute http(s) URL or a
 * `mailto:` address. Relative URLs, fragments and every other scheme (javascript:, data:, vbscript:,
 * file:, ...) are refused. The check is an allow-list on the decoded value, so encodings such as
 * `java&#x73;cript:` or `JaVaScRiPt:` cannot sneak past it.
 */
export function isAllowedHref(href: string): boolean {
  // Browsers strip whitespace and controls inside URLs (`java\tscript:`); refuse rather than guess.
  if (/\s/u.test(href) || containsControlCharacter(href)) return false;
  if (/^mailto:/i.test(href)) return href.length > 'mailto:'.length && !/[<>"]/.test(href);
  return isHttpUrl(href);
}
