import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { SignJWT } from 'jose';
import type Koa from 'koa';
import type { RateLimiter } from '@mrp/authz';
import { ProcedureRegistry, loadConfig, type AnyProcedure, type Logger, type PlatformConfig } from '@mrp/platform';
import { createTestDatabase, type TestDatabase } from '@mrp/platform/testing';
import { createRuntime, type Runtime } from '@mrp/runtime';
import { buildApp } from '../../src/app';
import { createHttpServer } from '../../src/http/http-server';
import { createSessionAuthenticator } from '../../src/rpc/session-authenticator';
import { createRateLimiter } from '../../src/public-api/rate-limiter';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256!';
export const ADMIN_EMAIL = 'admin@platform.example';
/** The one identity behind ADMIN_EMAIL (emails are unique across users). */
export const PLATFORM_ADMIN = { sub: '0190aaaa-0000-7000-8000-000000000001', email: ADMIN_EMAIL, name: 'Platform Admin' };

export interface TestApi {
  url: string;
  runtime: Runtime;
  config: PlatformConfig;
  database: TestDatabase;
  /** fetch against the listening server; JSON bodies are encoded for you. */
  request(path: string, init?: RequestInit & { json?: unknown; token?: string; organizationId?: string }): Promise<Response>;
  rpc<T = unknown>(name: string, input: unknown, auth: { token: string; organizationId?: string }): Promise<{ status: number; body: T; response: Response }>;
  /**
   * GET /api/v1/openapi.json as this api serves it to `token` (anonymous without one), from the
   * same runtime and code but a rate limiter that admits everything: reading the document never
   * takes from the key's bucket, so tests that count it are not disturbed.
   */
  openApiDocument(token?: string): Promise<Response>;
  close(): Promise<void>;
}

export interface StartTestApiOptions {
  extraProcedures?: AnyProcedure[];
  /**
   * Run on this database instead of a private one, e.g. another TestApi's: two api processes
   * sharing one database. Whoever created the database drops it; this api leaves it alone.
   */
  database?: TestDatabase;
  /** The runtime's logger (e.g. one writing to a captured stream); silent by default. */
  logger?: Logger;
  /** A built console to serve at `/`. */
  consoleDir?: string;
}

const ADMIT_EVERYTHING: RateLimiter = {
  take: async () => ({ allowed: true, limit: 1, remaining: 1, retryAfterSeconds: 0, resetSeconds: 0 }),
};

/** A real api on a real, private PostgreSQL database, listening on a free port. */
export async function startTestApi(
  env: Record<string, string> = {},
  { extraProcedures = [], database: sharedDatabase, logger, consoleDir }: StartTestApiOptions = {},
): Promise<TestApi> {
  const database = sharedDatabase ?? (await createTestDatabase());
  const config = loadConfig(
    {
      NODE_ENV: 'test',
      ...database.env,
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
      PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL,
      CRON_SECRET: 'cron-secret-for-tests-0123456789',
      // Quiet whatever NODE_ENV a test picks (production's default level is info): a test that
      // reads the logs passes its own logger.
      LOG_LEVEL: 'silent',
      ...env,
    },
    { requireSessionAuth: true },
  );
  const runtime = await createRuntime(config, { name: 'api-test', poolSize: 5, statementTimeoutMs: config.statementTimeoutMs, logger });
  if (extraProcedures.length) runtime.procedures = new ProcedureRegistry([...runtime.procedures.all(), ...extraProcedures]);
  const appDeps = {
    runtime,
    authenticateSession: createSessionAuthenticator(config, runtime.dispatcher),
    rateLimiter: createRateLimiter(runtime),
    referencePageDir: resolve(__dirname, '..', '..', 'src', 'public-api', 'reference'),
    consoleDir,
  };
  const listen = async (app: Koa) => {
    const server: Server = createHttpServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  const { server, url } = await listen(buildApp(appDeps));
  let documentServer: Promise<{ server: Server; url: string }> | undefined;

  const request: TestApi['request'] = (path, init = {}) => {
    const { json, token, organizationId, headers, ...rest } = init;
    const allHeaders = new Headers(headers);
    if (json !== undefined) allHeaders.set('Content-Type', 'application/json');
    if (token) allHeaders.set('Authorization', `Bearer ${token}`);
    if (organizationId) allHeaders.set('X-Organization-Id', organizationId);
    return fetch(`${url}${path}`, {
      method: json !== undefined ? 'POST' : 'GET',
      ...rest,
      headers: allHeaders,
      body: json !== undefined ? JSON.stringify(json) : rest.body,
    });
  };

  return {
    url,
    runtime,
    config,
    database,
    request,
    async rpc<T>(name: string, input: unknown, auth: { token: string; organizationId?: string }) {
      const response = await request(`/rpc/${name}`, { method: 'POST', json: input, ...auth });
      return { status: response.status, body: (await response.json()) as T, response };
    },
    async openApiDocument(token) {
      documentServer ??= listen(buildApp({ ...appDeps, rateLimiter: ADMIT_EVERYTHING }));
      const { url: documentUrl } = await documentServer;
      return fetch(`${documentUrl}/api/v1/openapi.json`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    },
    async close() {
      const servers = [server, ...(documentServer ? [(await documentServer).server] : [])];
      for (const open of servers) open.closeAllConnections();
      await Promise.all(servers.map((open) => new Promise<void>((resolve) => open.close(() => resolve()))));
      await runtime.close();
      if (!sharedDatabase) await database.drop();
    },
  };
}

export interface SessionUser {
  sub: string;
  email: string;
  /** The provider's `email_verified` claim; left out of the token when undefined. */
  emailVerified?: boolean;
  name?: string;
}

let userCounter = 0;

/** A new human identity, as the identity provider would issue it. */
export function newHuman(name = 'user'): SessionUser {
  userCounter += 1;
  const suffix = `${Date.now().toString(36)}${userCounter}`;
  return { sub: crypto.randomUUID(), email: `${name}-${suffix}@example.com`, name: `${name} ${userCounter}` };
}

export async function sessionToken(user: SessionUser, { expiresIn = '1h', secret = TEST_JWT_SECRET } = {}): Promise<string> {
  return new SignJWT({
    email: user.email,
    ...(user.emailVerified === undefined ? {} : { email_verified: user.emailVerified }),
    ...(user.name ? { name: user.name } : {}),
  })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(user.sub)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}

export interface ErrorBody {
  error: { code: string; message: string; details?: Array<{ field: string; code: string; message: string }>; requestId?: string };
}

/** The error of an answer, its request id checked against X-Request-Id and left out, so errors compare by content. */
export async function errorOf(response: Response): Promise<ErrorBody['error']> {
  const { requestId, ...error } = ((await response.json()) as ErrorBody).error;
  expect(requestId).toBe(response.headers.get('x-request-id'));
  return error;
}

export async function jsonOf<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
