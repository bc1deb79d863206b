import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { DomainError, badRequest } from '@mrp/platform';
import type { RateLimiter } from '@mrp/authz';
import type { Runtime } from '@mrp/runtime';
import { JsonText } from '../http/compression';
import { readJsonBody } from '../http/json-body';
import { requestState } from '../http/request-context';
import { apiKeyAuthentication, type PublicApiState } from '../public-api/api-key-authentication';
import { JsonAnswerTransport, type McpRequestHeaders } from './json-answer-transport';
import { createMcpServer } from './mcp-server';
import { McpTools } from './tool-calls';

export const MCP_PATH = '/mcp';

const isMcpPath = (path: string) => {
  const lower = path.toLowerCase();
  return lower === MCP_PATH || lower.startsWith(`${MCP_PATH}/`);
};

/** /mcp is the public API's third door: inert, and saying nothing of itself, while `public-api.enabled` is off. */
export function mcpGate(runtime: Runtime) {
  return async (ctx: Context, next: Next) => {
    if (isMcpPath(ctx.path) && !(await runtime.flags.isEnabled('public-api.enabled'))) {
      throw new DomainError('public_api_disabled', 'The public API is not enabled on this deployment');
    }
    await next();
  };
}

// As /api/v1's, with the headers of the Streamable HTTP transport.
const ALLOWED_HEADERS = 'authorization, content-type, accept, idempotency-key, x-request-id, mcp-protocol-version, mcp-session-id, last-event-id';
const EXPOSED_HEADERS = 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Mcp-Session-Id';

/** CORS for /mcp, from the same PUBLIC_API_CORS_ORIGINS as /api/v1 (browser-based MCP clients such as the Inspector). */
export function mcpCors(allowedOrigins: readonly string[]) {
  const allowed = new Set(allowedOrigins);
  return async (ctx: Context, next: Next) => {
    const origin = ctx.get('Origin');
    if (!origin || !isMcpPath(ctx.path)) return next();
    ctx.vary('Origin');
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
      if (!allowed.has(origin)) throw new DomainError('forbidden', `Origin ${origin} may not call this API (see PUBLIC_API_CORS_ORIGINS)`);
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Methods', 'POST');
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    if (allowed.has(origin)) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    await next();
  };
}

/** The request headers the transport reads; the others (the key among them) never reach it or the handlers. */
const TRANSPORT_HEADERS = ['accept', 'mcp-protocol-version'] as const;

export function transportHeaders(ctx: Pick<Context, 'get'>): McpRequestHeaders {
  const headers: McpRequestHeaders = {};
  for (const name of TRANSPORT_HEADERS) {
    const value = ctx.get(name);
    if (value !== '') headers[name] = value;
  }
  return headers;
}

/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP, stateless (a server and a transport
 * per request, answering JSON). Each request passes /api/v1's key authentication and takes one
 * token from the key's bucket; a request holds one JSON-RPC message, so a tool call is one token.
 * GET and DELETE (the server-sent stream and the session end of stateful servers) are 405.
 */
export function mcpRouter(runtime: Runtime, limiter: RateLimiter): Router {
  const router = new Router({ sensitive: true, strict: true });
  const tools = new McpTools(runtime);
  router.post(MCP_PATH, apiKeyAuthentication(runtime, limiter), async (ctx) => {
    const message = await readJsonBody(ctx);
    if (message === undefined) throw badRequest('Send one JSON-RPC message as the JSON body');
    // One message per request keeps "one tool call, one token" true (batches left the protocol in 2025-06-18).
    if (Array.isArray(message)) throw badRequest('Send one JSON-RPC message per request; batches are not accepted');
    const { principal } = ctx.state as PublicApiState;
    const { em, requestId, log } = requestState(ctx);
    const server = createMcpServer(runtime, tools, { principal, em, requestId, log });
    const transport = new JsonAnswerTransport();
    await server.connect(transport);
    const answer = await transport.handle(message, transportHeaders(ctx));
    ctx.status = answer.status;
    // JSON goes through compressJson as /api/v1's answers do (compressed when large).
    if (answer.body !== undefined) ctx.body = new JsonText(JSON.stringify(answer.body));
    // Neither is closed: with the answer out, nothing of theirs is open (no stream, timer or
    // pending request), and both go with the request.
  });
  return router;
}
