/** The REST API's reference page (Redoc over `/api/v1/openapi.json`), served by the api beside the console. */
export const API_REFERENCE_PATH = '/api/v1/docs';

/**
 * Redoc's address of an operation: `#tag/<tag>/operation/<operationId>`. Tags with nothing but
 * letters, digits, `_` and `-` (ours: Records, Models, and model keys) keep their spelling.
 */
export function apiReferenceOperation(tag: string, operationId: string): string {
  return `${API_REFERENCE_PATH}#tag/${encodeURIComponent(tag)}/operation/${encodeURIComponent(operationId)}`;
}

/**
 * Where a model's operations are in the reference: the generic ones every reader sees (tag
 * Records, with the key as the `{key}` path parameter), and the model's own typed section, shown
 * once an API key is pasted on the page (tag and operation ids prefixed with the model key).
 */
export function modelApiReference(modelKey: string) {
  return {
    list: apiReferenceOperation('Records', 'listRecords'),
    create: apiReferenceOperation('Records', 'createRecord'),
    typed: `${API_REFERENCE_PATH}#tag/${encodeURIComponent(modelKey)}`,
  };
}
