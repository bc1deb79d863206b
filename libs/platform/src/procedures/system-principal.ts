import type { Principal } from './principal';

export interface SystemPrincipalOptions {
  /** The organization the work is done in, for organization-scoped procedures. */
  organizationId?: string | null;
  /** Exactly what the task may do; nothing is implied. */
  permissions?: readonly string[];
}

/**
 * The principal of work no person does (a scheduled task, a webhook worker): named after its task,
 * so `created_by` columns and logs say which, and holding only the permissions it is given.
 * It is never a platform admin and never a member of anything.
 */
export function systemPrincipal(task: string, options: SystemPrincipalOptions = {}): Principal {
  return {
    userId: `system:${task}`,
    kind: 'SERVICE',
    email: '',
    displayName: `System (${task})`,
    isPlatformAdmin: false,
    organizationId: options.organizationId ?? null,
    roleIds: [],
    permissions: new Set(options.permissions ?? []),
    credential: { type: 'system', task },
  };
}
