/**
 * A JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it) as plain data: no library here, since
 * browsers import this package and only describe values with it, never validate.
 */
export type JsonSchema = { [keyword: string]: unknown };
