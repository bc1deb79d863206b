import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { DomainError, badRequest } from '@mrp/platform';
import type { RateLimiter } from '@mrp/authz';
import type { Runtime } from '@mrp/runtime';
import { JsonText } from '../http/compression';
import { readJsonBody } from '../http/json-body';
import { requestState } from '../http/request-context';
import { apiKeyAuthentication, type PublicApiState } from '../public-api/api-key-authentication';
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

/** The request headers the transport reads; the others (the key among them) stay out of its Request. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'] as const;

/** The transport hands the URL on to handlers as request info, which none of ours reads. */
const TRANSPORT_URL = `http://localhost${MCP_PATH}`;

/** Distinct header sets kept at most; past it the kept Requests are dropped and built again. */
const MAX_KEPT_REQUESTS = 64;

/**
 * The Request the transport is handed: it reads the method, the URL and the headers above, never
 * the body (given to it parsed), so one Request per distinct set of those headers serves every
 * call that sends them. Clients send one or two such sets; building an undici Request (and its
 * AbortSignal) for each call was a tenth of the door's own time.
 */
class TransportRequests {
  private readonly kept = new Map<string, Request>();

  for(ctx: Context): Request {
    const values = TRANSPORT_HEADERS.map((name) => ctx.get(name));
    // Header values hold no line breaks, so the joined values name the set.
    const key = values.join('\n');
    const kept = this.kept.get(key);
    if (kept) return kept;
    const headers = new Headers();
    TRANSPORT_HEADERS.forEach((name, index) => {
      if (values[index] !== '') headers.set(name, values[index]);
    });
    const request = new Request(TRANSPORT_URL, { method: 'POST', headers });
    if (this.kept.size >= MAX_KEPT_REQUESTS) this.kept.clear();
    this.kept.set(key, request);
    return request;
  }
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
  const requests = new TransportRequests();
  router.post(MCP_PATH, apiKeyAuthentication(runtime, limiter), async (ctx) => {
    const message = await readJsonBody(ctx);
    if (message === undefined) throw badRequest('Send one JSON-RPC message as the JSON body');
    // One message per request keeps "one tool call, one token" true (batches left the protocol in 2025-06-18).
    if (Array.isArray(message)) throw badRequest('Send one JSON-RPC message per request; batches are not accepted');
    const { principal } = ctx.state as PublicApiState;
    const { em, requestId, log } = requestState(ctx);
    const server = createMcpServer(runtime, tools, { principal, em, requestId, log });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    const answer = await transport.handleRequest(requests.for(ctx), { parsedBody: message });
    ctx.status = answer.status;
    const type = answer.headers.get('content-type');
    const text = await answer.text();
    if (type) ctx.type = type;
    // JSON goes through compressJson as /api/v1's answers do (compressed when large), as the text it already is.
    if (text !== '') ctx.body = type?.startsWith('application/json') ? new JsonText(text) : text;
    // Neither is closed: with the JSON answer out, nothing of theirs is open (no stream, timer or
    // pending request), and both go with the request. Closing would only build an Error, with its
    // stack, for requests that are not waiting (a twentieth of the door's time).
  });
  return router;
}
