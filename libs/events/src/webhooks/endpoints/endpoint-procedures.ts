import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, defineProcedure, newId, notFound, sqlTextArray, validationFailed, type ProcedureContext } from '@mrp/platform';
import type { AddressPolicy } from '../url-safety/address-policy';
import { checkEndpointUrl } from '../url-safety/check-endpoint-url';
import type { HostLookup } from '../url-safety/host-lookup';
import { generateEndpointSecret, hashEndpointSecret } from '../secrets/endpoint-secret';
import { encryptEndpointSecret } from '../secrets/secret-encryption';
import {
  EndpointByIdInput,
  EndpointsCreateInput,
  EndpointsDisableInput,
  EndpointsListInput,
  EndpointsRotateSecretInput,
  EndpointsUpdateInput,
} from './endpoint-inputs';
import { endpointOwner, type EndpointOwner } from './endpoint-owner';
import { ENDPOINT_COLUMNS, toEndpointView, type EndpointRow } from './endpoint-rows';
import { DeletedEndpointSchema, EndpointListSchema, EndpointViewSchema, EndpointWithSecretSchema } from './endpoint-view';
import { subscriptionProblem } from './subscriptions';

/** An organization (or the platform) keeps at most this many endpoints; each change fans out to all of them. */
export const MAX_ENDPOINTS_PER_OWNER = 50;

export interface EndpointProcedureDeps {
  addressPolicy: AddressPolicy;
  /** WEBHOOK_SECRET_ENCRYPTION_KEY: without it the built-in resolver cannot sign (see docs/webhooks.md). */
  secretEncryptionKey: Buffer | undefined;
  /** DNS for the creation-time URL check; tests inject one. */
  lookup?: HostLookup;
  /** Told after commit that the owner's endpoints changed, so this process's outbox forgets them at once. */
  routesChanged?: (organizationId: string | null) => void;
  /**
   * Refuses unless the caller may have an endpoint of the organization act as `principalId`: one
   * being chosen must be the caller or an active service account, and the caller must hold its
   * authority, row-access roles included (decision 128). authz's rule, handed in.
   */
  assertMayActAs(ctx: ProcedureContext, organizationId: string, principalId: string, options: { choosing: boolean; action: string }): Promise<void>;
}

/**
 * Whom a new endpoint acts as: its creator unless another is chosen. A platform-wide endpoint is
 * its creating platform admin's, who acts as no member of any organization.
 */
async function chosenPrincipal(ctx: ProcedureContext, deps: EndpointProcedureDeps, organizationId: string | null, principalId: string | undefined): Promise<string> {
  const chosen = principalId ?? ctx.principal.userId;
  if (organizationId === null) {
    if (chosen !== ctx.principal.userId) throw validationFailed([{ field: 'principalId', code: 'invalid_option', message: 'a platform-wide endpoint acts as its creator' }]);
    return chosen;
  }
  await deps.assertMayActAs(ctx, organizationId, chosen, { choosing: true, action: 'have an endpoint act with' });
  return chosen;
}

function checkSubscriptions(subscriptions: readonly string[]): void {
  const problems = subscriptions.flatMap((pattern, index) => {
    const problem = subscriptionProblem(pattern);
    return problem === null ? [] : [{ field: `subscriptions/${index}`, code: 'invalid_value', message: `"${pattern}" ${problem}` }];
  });
  if (problems.length > 0) throw validationFailed(problems);
}

/** The owner's endpoint, locked for the change; someone else's is missing, as an unknown id is. */
async function lockOwnEndpoint(em: EntityManager, owner: EndpointOwner, id: string): Promise<EndpointRow> {
  const [row] = await em.execute<EndpointRow[]>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ? AND organization_id IS NOT DISTINCT FROM ?::uuid FOR UPDATE`,
    [id, owner.organizationId],
  );
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

function sealedSecret(deps: EndpointProcedureDeps, endpointId: string, secret: string) {
  return {
    hash: hashEndpointSecret(secret),
    ciphertext: deps.secretEncryptionKey ? encryptEndpointSecret(deps.secretEncryptionKey, endpointId, secret) : null,
  };
}

export function createEndpointProcedures(deps: EndpointProcedureDeps) {
  const checkUrl = (url: string) => checkEndpointUrl(url, deps.addressPolicy, { lookup: deps.lookup });

  const list = defineProcedure({
    name: 'webhooks.endpoints.list',
    summary: "The organization's webhook endpoints (or, with platform: true, the platform-wide ones)",
    scope: 'user',
    permission: null,
    readOnly: true,
    input: EndpointsListInput,
    output: EndpointListSchema,
    async handler(ctx, input) {
      const owner = endpointOwner(ctx, input.platform);
      const rows = await ctx.em.execute<EndpointRow[]>(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE organization_id IS NOT DISTINCT FROM ?::uuid ORDER BY id`,
        [owner.organizationId],
      );
      return { items: rows.map((row) => toEndpointView(row)) };
    },
  });

  const create = defineProcedure({
    name: 'webhooks.endpoints.create',
    summary: 'Subscribe an endpoint to events; its signing secret is returned once',
    scope: 'user',
    permission: null,
    input: EndpointsCreateInput,
    output: EndpointWithSecretSchema,
    async handler(ctx, input) {
      const owner = endpointOwner(ctx, input.platform);
      ctx.afterCommit(async () => deps.routesChanged?.(owner.organizationId));
      checkSubscriptions(input.subscriptions);
      const url = await checkUrl(input.url);
      const principalId = await chosenPrincipal(ctx, deps, owner.organizationId, input.principalId);
      // Serialises creations per owner, so two at once cannot both pass the limit.
      await ctx.em.execute('SELECT pg_advisory_xact_lock(hashtext(?))', [`webhook-endpoints:${owner.organizationId ?? 'platform'}`]);
      const [{ count }] = await ctx.em.execute<Array<{ count: number }>>(
        'SELECT count(*)::int AS count FROM webhook_endpoints WHERE organization_id IS NOT DISTINCT FROM ?::uuid',
        [owner.organizationId],
      );
      if (count >= MAX_ENDPOINTS_PER_OWNER) throw conflict(`At most ${MAX_ENDPOINTS_PER_OWNER} webhook endpoints; delete one first`);
      const id = newId();
      const secret = generateEndpointSecret();
      const sealed = sealedSecret(deps, id, secret);
      const [row] = await ctx.em.execute<EndpointRow[]>(
        `INSERT INTO webhook_endpoints (id, organization_id, url, description, subscriptions, secret_hash, secret_ciphertext, created_by, principal_id, signing, ordering)
         VALUES (?, ?::uuid, ?, ?, ?::text[], ?, ?, ?, ?, ?, ?)
         RETURNING ${ENDPOINT_COLUMNS}`,
        [
          id,
          owner.organizationId,
          url,
          input.description ?? '',
          sqlTextArray(input.subscriptions),
          sealed.hash,
          sealed.ciphertext,
          ctx.principal.userId,
          principalId,
          input.signing ?? 'contract',
          input.ordering ?? 'none',
        ],
      );
      return { endpoint: toEndpointView(row), secret };
    },
  });

  const update = defineProcedure({
    name: 'webhooks.endpoints.update',
    summary: "Change an endpoint's URL, description, subscriptions, principal or ordering",
    scope: 'user',
    permission: null,
    input: EndpointsUpdateInput,
    output: EndpointViewSchema,
    async handler(ctx, input) {
      const owner = endpointOwner(ctx, input.platform);
      ctx.afterCommit(async () => deps.routesChanged?.(owner.organizationId));
      if (input.subscriptions) checkSubscriptions(input.subscriptions);
      const url = input.url === undefined ? undefined : await checkUrl(input.url);
      const current = await lockOwnEndpoint(ctx.em, owner, input.id);
      let principalId = current.principal_id;
      if (input.principalId !== undefined && input.principalId !== current.principal_id) {
        principalId = await chosenPrincipal(ctx, deps, owner.organizationId, input.principalId);
      } else if ((url !== undefined || input.subscriptions !== undefined) && owner.organizationId !== null && current.principal_id !== null) {
        // Sending its principal's records somewhere new, or more of them, is acting as it.
        await deps.assertMayActAs(ctx, owner.organizationId, current.principal_id, { choosing: false, action: 'redirect an endpoint that acts with' });
      }
      const [row] = await ctx.em.execute<EndpointRow[]>(
        `UPDATE webhook_endpoints SET url = ?, description = ?, subscriptions = ?::text[], principal_id = ?, ordering = ?, updated_at = now()
          WHERE id = ? RETURNING ${ENDPOINT_COLUMNS}`,
        [
          url ?? current.url,
          input.description ?? current.description,
          sqlTextArray(input.subscriptions ?? current.subscriptions),
          principalId,
          input.ordering ?? current.ordering,
          input.id,
        ],
      );
      return toEndpointView(row);
    },
  });

  const remove = defineProcedure({
    name: 'webhooks.endpoints.delete',
    summary: 'Delete an endpoint with its delivery log; queued deliveries to it are dropped',
    scope: 'user',
    permission: null,
    input: EndpointByIdInput,
    output: DeletedEndpointSchema,
    async handler(ctx, input) {
      const owner = endpointOwner(ctx, input.platform);
      ctx.afterCommit(async () => deps.routesChanged?.(owner.organizationId));
      await lockOwnEndpoint(ctx.em, owner, input.id);
      await ctx.em.execute('DELETE FROM webhook_endpoints WHERE id = ?', [input.id]);
      return { id: input.id, deleted: true as const };
    },
  });

  const rotateSecret = defineProcedure({
    name: 'webhooks.endpoints.rotateSecret',
    summary: 'Replace the signing secret (returned once), optionally switching the signing scheme; during the overlap deliveries carry both signatures',
    scope: 'user',
    permission: null,
    input: EndpointsRotateSecretInput,
    output: EndpointWithSecretSchema,
    async handler(ctx, input) {
      const owner = endpointOwner(ctx, input.platform);
      const current = await lockOwnEndpoint(ctx.em, owner, input.id);
      const signing = input.signing ?? current.signing;
      const overlap = input.overlapSeconds ?? 0;
      // A receiver verifies one scheme: the old secret signing by the new one would help nobody.
      if (signing !== current.signing && overlap > 0) {
        throw validationFailed([{ field: 'overlapSeconds', code: 'invalid_option', message: 'must be 0 when the signing scheme changes' }]);
      }
      const secret = generateEndpointSecret();
      const sealed = sealedSecret(deps, input.id, secret);
      // With an overlap the old secret moves aside and keeps signing until it expires; without, it is gone.
      const [row] = await ctx.em.execute<EndpointRow[]>(
        `UPDATE webhook_endpoints SET
            previous_secret_hash = CASE WHEN ?::int > 0 THEN secret_hash END,
            previous_secret_ciphertext = CASE WHEN ?::int > 0 THEN secret_ciphertext END,
            previous_secret_expires_at = CASE WHEN ?::int > 0 THEN now() + make_interval(secs => ?::int) END,
            secret_hash = ?, secret_ciphertext = ?, signing = ?, updated_at = now()
          WHERE id = ? RETURNING ${ENDPOINT_COLUMNS}`,
        [overlap, overlap, overlap, overlap, sealed.hash, sealed.ciphertext, signing, input.id],
      );
      return { endpoint: toEndpointView(row), secret };
    },
  });

  const enable = defineProcedure({
    name: 'webhooks.endpoints.enable',
    summary: 'Enable a disabled endpoint again, with its failure count reset (see recover for what it missed)',
    scope: 'user',
    permission: null,
    input: EndpointByIdInput,
    output: EndpointViewSchema,
    async handler(ctx, input) {
      const owner = endpointOwner(ctx, input.platform);
      ctx.afterCommit(async () => deps.routesChanged?.(owner.organizationId));
      await lockOwnEndpoint(ctx.em, owner, input.id);
      const [row] = await ctx.em.execute<EndpointRow[]>(
        `UPDATE webhook_endpoints SET state = 'enabled', disabled_reason = NULL, disabled_at = NULL, consecutive_failures = 0, updated_at = now()
          WHERE id = ? RETURNING ${ENDPOINT_COLUMNS}`,
        [input.id],
      );
      return toEndpointView(row);
    },
  });

  const disable = defineProcedure({
    name: 'webhooks.endpoints.disable',
    summary: 'Pause an endpoint: nothing is queued for it, and what is queued fails, until it is enabled',
    scope: 'user',
    permission: null,
    input: EndpointsDisableInput,
    output: EndpointViewSchema,
    async handler(ctx, input) {
      const owner = endpointOwner(ctx, input.platform);
      ctx.afterCommit(async () => deps.routesChanged?.(owner.organizationId));
      const current = await lockOwnEndpoint(ctx.em, owner, input.id);
      if (current.state === 'disabled') return toEndpointView(current);
      const [row] = await ctx.em.execute<EndpointRow[]>(
        `UPDATE webhook_endpoints SET state = 'disabled', disabled_reason = ?, disabled_at = now(), updated_at = now()
          WHERE id = ? RETURNING ${ENDPOINT_COLUMNS}`,
        [input.reason ?? `disabled by ${ctx.principal.displayName || ctx.principal.userId}`, input.id],
      );
      return toEndpointView(row);
    },
  });

  return [list, create, update, remove, rotateSecret, enable, disable];
}
