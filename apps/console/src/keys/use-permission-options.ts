import { useMemo } from 'react';
import { useRpcQuery } from '../api/use-rpc-query';
import type { Option } from '../forms/fields';

/**
 * The permissions the signed-in person holds in the active organization, as options with the
 * catalog's descriptions: what a key they create may carry.
 */
export function useOwnPermissionOptions(permissions: ReadonlySet<string>): Option[] {
  const catalog = useRpcQuery('rbac.permissions.list');
  return useMemo(() => {
    const descriptions = new Map((catalog.data?.items ?? []).map((item) => [item.key, item.description]));
    return [...permissions].sort().map((permission) => ({ value: permission, label: permission, description: descriptions.get(permission) }));
  }, [catalog.data, permissions]);
}
