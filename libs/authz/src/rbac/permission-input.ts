import { validationFailed } from '@mrp/platform';
import { isPermission } from './permission-catalog';

/** 400 naming every permission the catalog does not know. */
export function assertKnownPermissions(permissions: readonly string[]): void {
  const unknown = permissions.filter((permission) => !isPermission(permission));
  if (unknown.length > 0) {
    throw validationFailed(
      unknown.map((permission) => ({ field: 'permissions', code: 'invalid_option', message: `unknown permission "${permission}"` })),
      `Unknown permissions: ${unknown.join(', ')}`,
    );
  }
}
