/** Elements rich text may contain. Everything else (including <img>, <script>, <style>) is refused. */
export const ALLOWED_ELEMENTS: ReadonlySet<string> = new Set([
  'p',
  'br',
  'strong',
  'em',
  'u',
  's',
  'a',
  'ul',
  'ol',
  'li',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'code',
  'pre',
]);

/** Attributes allowed per element. Only links carry one; event handlers, `style` and the rest are refused. */
export const ALLOWED_ATTRIBUTES: Readonly<Record<string, ReadonlySet<string>>> = {
  a: new Set(['href']),
};

export function isAllowedAttribute(element: string, attribute: string): boolean {
  return Object.hasOwn(ALLOWED_ATTRIBUTES, element) && (ALLOWED_ATTRIBUTES[element]?.has(attribute) ?? false);
}
