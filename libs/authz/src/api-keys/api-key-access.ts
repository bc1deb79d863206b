import { validationFailed, type ErrorDetail } from '@mrp/platform';
import { isPermission } from '../rbac/permission-catalog';

export interface ApiKeyAccessRequest {
  fullAccess: boolean;
  permissions?: string[];
  expiresAt?: string | null;
}

export interface ApiKeyAccess {
  fullAccess: boolean;
  /** Sorted allowlist; empty for a full-access key. */
  permissions: string[];
  expiresAt: Date | null;
}

/**
 * Checks what a new key may do. A limited key's allowlist must name catalog permissions that
 * the granter holds right now: an allowlist never widens authority, and one that names what
 * the granter lacks would be a lie on the keys page. Every problem is reported at once.
 */
export function checkApiKeyAccess(
  request: ApiKeyAccessRequest,
  granterPermissions: ReadonlySet<string>,
  now: Date = new Date(),
): ApiKeyAccess {
  const details: ErrorDetail[] = [];
  const permissions = [...new Set(request.permissions ?? [])].sort();

  if (request.fullAccess && permissions.length > 0) {
    details.push({
      field: 'permissions',
      code: 'invalid_format',
      message: 'must be omitted or empty for a full-access key',
    });
  }
  if (!request.fullAccess) {
    if (permissions.length === 0) {
      details.push({ field: 'permissions', code: 'required', message: 'a limited key needs at least one permission' });
    }
    for (const permission of permissions) {
      if (!isPermission(permission)) {
        details.push({ field: 'permissions', code: 'invalid_option', message: `"${permission}" is not a known permission` });
      } else if (!granterPermissions.has(permission)) {
        details.push({ field: 'permissions', code: 'invalid_option', message: `"${permission}" is not a permission you hold` });
      }
    }
  }

  let expiresAt: Date | null = null;
  if (request.expiresAt) {
    expiresAt = new Date(request.expiresAt);
    // The date-time format admits what Date cannot represent (a leap second, 23:59:60).
    if (Number.isNaN(expiresAt.getTime())) {
      details.push({ field: 'expiresAt', code: 'invalid_format', message: 'must be a valid date-time' });
    } else if (expiresAt.getTime() <= now.getTime()) {
      details.push({ field: 'expiresAt', code: 'out_of_range', message: 'must be in the future' });
    }
  }

  if (details.length > 0) throw validationFailed(details);
  return { fullAccess: request.fullAccess, permissions: request.fullAccess ? [] : permissions, expiresAt };
}
