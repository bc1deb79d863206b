import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@mrp/platform';
import { createRuntime, type Runtime } from '@mrp/runtime';
// The benchmark measures the real api app, in-process: its middleware, doors and procedures as deployed.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { buildApp } from '../../../apps/api/src/app';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { createHttpServer } from '../../../apps/api/src/http/http-server';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { createSessionAuthenticator } from '../../../apps/api/src/rpc/session-authenticator';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { createRateLimiter } from '../../../apps/api/src/public-api/rate-limiter';

export const BENCH_ADMIN = { sub: '0190bbbb-0000-7000-8000-00000000be01', email: 'bench-admin@bench.example', name: 'Bench Admin' };

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export interface RunningApi extends RunningServer {
  runtime: Runtime;
}

/**
 * The api exactly as `apps/api/src/main.ts` builds it (Postgres rate limiter included), with the
 * rate limit raised out of the way and logging silenced, listening on a free port.
 */
export async function startApi(databaseUrl: string, poolSize: number, extraEnv: Record<string, string> = {}): Promise<RunningApi> {
  const config = loadConfig(
    {
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
      CURSOR_SECRET: randomBytes(32).toString('hex'),
      PLATFORM_ADMIN_EMAILS: BENCH_ADMIN.email,
      PUBLIC_API_RATE_PER_SECOND: '1000000',
      PUBLIC_API_BURST: '1000000',
      LOG_LEVEL: 'silent',
      ...extraEnv,
    },
    { requireSessionAuth: true },
  );
  const runtime = await createRuntime(config, { name: 'bench-api', poolSize });
  const app = buildApp({ runtime, authenticateSession: createSessionAuthenticator(config, runtime.dispatcher), rateLimiter: createRateLimiter(runtime) });
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    runtime,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}
