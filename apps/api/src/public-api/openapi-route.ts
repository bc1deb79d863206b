import type { Context } from 'koa';
import type { OpenAPIV3_1 } from 'openapi-types';
import { invokeProcedure } from '@mrp/platform';
import type { RateLimiter } from '@mrp/authz';
import type { ModelCatalog } from '@mrp/data-models';
import type { Runtime } from '@mrp/runtime';
import { requestState } from '../http/request-context';
import { apiKeyAuthentication, type PublicApiState } from './api-key-authentication';
import { buildOpenApiDocument } from './openapi-document';
import { buildOrganizationDocument } from './organization-openapi';
import { declareQuery, parseQuery } from './query-parameters';
import type { BoundRoute } from './route-binding';

const NO_QUERY = declareQuery([]);

/** The procedure that describes an organization's models; its permission decides whether a key sees them. */
export const MODEL_CATALOG_PROCEDURE = 'dataModels.catalog';

/** Organizations whose typed document is kept; past it the longest-kept one is dropped. */
const CACHED_ORGANIZATIONS = 200;

/**
 * Typed documents by organization, each valid for one catalog version: a model or field change
 * makes a new version, so an entry is never served stale. Building the document (schemas, paths,
 * sampled examples) is what is saved; the catalog itself is read on every request, in one query,
 * so every api process agrees at once.
 */
class OrganizationDocuments {
  private readonly entries = new Map<string, { version: string; document: OpenAPIV3_1.Document }>();

  documentFor(organizationId: string, catalog: ModelCatalog, build: () => OpenAPIV3_1.Document): OpenAPIV3_1.Document {
    const cached = this.entries.get(organizationId);
    if (cached?.version === catalog.version) return cached.document;
    const document = build();
    this.entries.delete(organizationId);
    this.entries.set(organizationId, { version: catalog.version, document });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= CACHED_ORGANIZATIONS) break;
      this.entries.delete(oldest);
    }
    return document;
  }
}

/**
 * `GET /api/v1/openapi.json`. Without an Authorization header: the generic document, to anyone.
 * With one, the key is authenticated and rate-limited like on every other route (a key that is
 * not valid is a 401, never a silent fallback), and the answer is the key's organization's typed
 * document when the key may read its models (the catalog procedure's permission), else the
 * generic one.
 */
export function openApiDocumentHandler(runtime: Runtime, limiter: RateLimiter, routes: readonly BoundRoute[]) {
  const generic = buildOpenApiDocument(routes);
  const catalogProcedure = runtime.procedures.require(MODEL_CATALOG_PROCEDURE);
  const documents = new OrganizationDocuments();
  const authenticate = apiKeyAuthentication(runtime, limiter);

  const typedDocument = async (ctx: Context) => {
    parseQuery(NO_QUERY, ctx.query);
    const { principal } = ctx.state as PublicApiState;
    if (catalogProcedure.permission !== null && !principal.permissions.has(catalogProcedure.permission)) {
      ctx.body = generic;
      return;
    }
    const { em, requestId } = requestState(ctx);
    const catalog = await runtime.organizationShare.run(principal.organizationId, () =>
      invokeProcedure<ModelCatalog>(catalogProcedure, {}, { em, principal, correlationId: requestId }, runtime.invocationDeps),
    );
    // An API key is pinned to one organization, so a key's principal always has one.
    ctx.body = documents.documentFor(String(principal.organizationId), catalog, () => buildOrganizationDocument(generic, catalog));
  };

  return async (ctx: Context) => {
    // Shared caches must keep the generic and each key's document apart.
    ctx.vary('Authorization');
    if (!ctx.get('Authorization')) {
      parseQuery(NO_QUERY, ctx.query);
      ctx.body = generic;
      return;
    }
    ctx.set('Cache-Control', 'private, no-cache');
    await authenticate(ctx, () => typedDocument(ctx));
  };
}
