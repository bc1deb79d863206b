import type { EntityManager, LoggingOptions } from '@mikro-orm/postgresql';

/**
 * A piece of SQL with its bind values. `em.execute` fills `?` placeholders from `params`, so
 * fragments are only ever concatenated with placeholders, never with values.
 */
export class SqlFragment {
  constructor(
    readonly text: string,
    readonly params: readonly unknown[],
  ) {}
}

/**
 * Tagged template: every interpolated value becomes a `?` placeholder and a bind value; an
 * interpolated SqlFragment is spliced in with its own values. Arrays bind as a comma-separated
 * list, so write them as `ARRAY[${values}]::type[]`.
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): SqlFragment {
  let text = strings[0];
  const params: unknown[] = [];
  values.forEach((value, index) => {
    if (value instanceof SqlFragment) {
      text += value.text;
      params.push(...value.params);
    } else {
      text += '?';
      params.push(value);
    }
    text += strings[index + 1];
  });
  return new SqlFragment(text, params);
}

/**
 * Trusted SQL text: fixed snippets and identifiers that were validated against a strict pattern
 * (field keys). Must never contain a `?`, which the driver would read as a placeholder.
 */
export function trustedSql(text: string): SqlFragment {
  if (text.includes('?')) throw new Error('Trusted SQL must not contain "?"');
  return new SqlFragment(text, []);
}

export function joinSql(parts: readonly SqlFragment[], separator: string): SqlFragment {
  return new SqlFragment(
    parts.map((part) => part.text).join(separator),
    parts.flatMap((part) => part.params),
  );
}

export async function runSql<T = Record<string, unknown>>(em: EntityManager, fragment: SqlFragment): Promise<T[]> {
  // The context's id travels with the statement so a request whose client left can cancel it (platform's cancelStatements).
  const context: LoggingOptions & { id: number } = { id: em.id };
  return em.execute<T[]>(fragment.text, [...fragment.params], 'all', context);
}
