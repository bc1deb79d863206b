import { isUuidString, validationFailed } from '@mrp/platform';

/** Opaque to clients: the id of the last notification of the previous page. */
export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isUuidString(id)) {
    throw validationFailed([{ field: 'cursor', code: 'invalid_format', message: 'is not a cursor from a previous page' }]);
  }
  return id;
}
