import { badRequest, forbidden, type ProcedureContext } from '@mrp/platform';

/** Whose endpoints a webhook procedure acts on: an organization's, or the platform's (`null`). */
export interface EndpointOwner {
  organizationId: string | null;
}

/**
 * The one access rule of every webhook procedure: an organization's endpoints need an active
 * organization and `webhooks.manage` in it; platform-wide endpoints (no organization) need a
 * platform admin. The declaration cannot express "either", so every handler calls this first.
 */
export function endpointOwner(ctx: ProcedureContext, platform: boolean | undefined): EndpointOwner {
  if (platform) {
    if (!ctx.principal.isPlatformAdmin) throw forbidden('Only platform administrators manage platform-wide webhook endpoints');
    return { organizationId: null };
  }
  if (!ctx.organizationId) throw badRequest('This operation needs an active organization (X-Organization-Id header)');
  ctx.requirePermission('webhooks.manage');
  return { organizationId: ctx.organizationId };
}
