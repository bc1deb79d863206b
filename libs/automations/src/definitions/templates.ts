/**
 * Templates in action values: `{{input.x}}`, `{{event.payload.x}}`, `{{now}}`. They are looked up
 * as data, never evaluated: a placeholder names a path, and the path is read from plain JSON with
 * own-property lookups only. A string that is exactly one placeholder becomes the value itself
 * (a number stays a number); placeholders inside other text are written into it as text.
 */

export type TemplateRoot = 'input' | 'event' | 'now';

export interface TemplateContext {
  input: unknown;
  event: unknown;
  /** ISO 8601, UTC: the same instant for every placeholder of a run. */
  now: string;
}

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{([^{}]*)\}\}$/;
const SEGMENT = /^[A-Za-z0-9_-]{1,100}$/;
const MAX_SEGMENTS = 16;

/** The path of a placeholder's text, or why it is not one. */
function parsePath(text: string, allowed: ReadonlySet<TemplateRoot>): { root: TemplateRoot; segments: string[] } | string {
  const path = text.trim();
  if (path === 'now') return allowed.has('now') ? { root: 'now', segments: [] } : '{{now}} is not available here';
  const [root, ...segments] = path.split('.');
  if (root !== 'input' && root !== 'event') return `{{${path}}} must start with input., event. or be {{now}}`;
  if (!allowed.has(root)) return `{{${path}}}: ${root} is not available with this trigger`;
  if (segments.length > MAX_SEGMENTS) return `{{${path}}} is nested deeper than ${MAX_SEGMENTS} levels`;
  if (!segments.every((segment) => SEGMENT.test(segment))) {
    return `{{${path}}} is not a path of names separated by dots (letters, digits, _ and -)`;
  }
  return { root, segments };
}

/** Every string inside `value`, with its JSON path under `at`. */
function* stringsOf(value: unknown, at: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [at, value];
  else if (Array.isArray(value)) for (const [index, item] of value.entries()) yield* stringsOf(item, `${at}[${index}]`);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) yield* stringsOf(item, `${at}.${key}`);
  }
}

/** Problems of every placeholder inside `value` (strings at any depth), as `[path, message]`. */
export function templateProblems(value: unknown, at: string, allowed: ReadonlySet<TemplateRoot>): Array<[string, string]> {
  const problems: Array<[string, string]> = [];
  for (const [path, text] of stringsOf(value, at)) {
    if (text.includes('{{') && text.replace(PLACEHOLDER, '').includes('{{')) {
      problems.push([path, 'has a {{ without a matching }}']);
    }
    for (const match of text.matchAll(PLACEHOLDER)) {
      const parsed = parsePath(match[1], allowed);
      if (typeof parsed === 'string') problems.push([path, parsed]);
    }
  }
  return problems;
}

function lookup(context: TemplateContext, root: TemplateRoot, segments: readonly string[]): unknown {
  if (root === 'now') return context.now;
  let current: unknown = context[root];
  for (const segment of segments) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const ALL_ROOTS: ReadonlySet<TemplateRoot> = new Set(['input', 'event', 'now']);

function renderString(text: string, context: TemplateContext): unknown {
  const whole = WHOLE_PLACEHOLDER.exec(text);
  if (whole) {
    const parsed = parsePath(whole[1], ALL_ROOTS);
    // A missing value is null: it clears an optional field, and a required one reports it.
    return typeof parsed === 'string' ? text : (lookup(context, parsed.root, parsed.segments) ?? null);
  }
  return text.replace(PLACEHOLDER, (placeholder, path: string) => {
    const parsed = parsePath(path, ALL_ROOTS);
    return typeof parsed === 'string' ? placeholder : asText(lookup(context, parsed.root, parsed.segments));
  });
}

/** `value` with every placeholder in its strings replaced; keys are never templates. */
export function renderTemplate(value: unknown, context: TemplateContext): unknown {
  if (typeof value === 'string') return renderString(value, context);
  if (Array.isArray(value)) return value.map((item) => renderTemplate(item, context));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderTemplate(item, context)]));
  }
  return value;
}

/** Whether any string inside `value` holds a placeholder: its value is known only when a run renders it. */
export function holdsTemplate(value: unknown): boolean {
  for (const [, text] of stringsOf(value, '')) {
    if (/\{\{[^{}]*\}\}/.test(text)) return true;
  }
  return false;
}
