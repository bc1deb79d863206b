import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@mrp/platform/testing';
import { freePort } from '@mrp/platform';

export const E2E_ADMIN_EMAIL = 'admin@console-e2e.example';

export interface ConsoleApi {
  url: string;
  process: AppProcess;
  close(): Promise<void>;
}

export interface ConsoleApiOptions {
  /**
   * Also run the webhook-worker (deliveries) and the cron-runner (automation runs) on the same
   * database, as `npm start` does, for pages whose work happens in those processes.
   */
  workers?: boolean;
}

async function stop(app: AppProcess): Promise<void> {
  if (app.child.exitCode === null && app.child.signalCode === null) {
    app.child.kill('SIGTERM');
    await app.exited;
  }
}

/**
 * The api as `npm start` runs it (its own process, development mode, the built console at `/`),
 * on a private database cloned from the migrated template.
 */
export async function startConsoleApi(env: Record<string, string> = {}, { workers = false }: ConsoleApiOptions = {}): Promise<ConsoleApi> {
  const database: TestDatabase = await createTestDatabase();
  const port = await freePort();
  const shared = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    ...database.env,
    AUTH_JWT_SECRET: 'console-e2e-secret-long-enough-for-hs256',
    CRON_SECRET: 'console-e2e-cron-secret-0123456789',
    PLATFORM_ADMIN_EMAILS: E2E_ADMIN_EMAIL,
    FEATURE_FLAGS: 'public-api.enabled=true,public-api.service-accounts=true',
    ...env,
  };
  const api = startAppProcess('api', { ...shared, PORT: String(port) });
  const helpers: AppProcess[] = workers
    ? [startAppProcess('webhook-worker', shared), startAppProcess('cron-runner', shared)]
    : [];
  const everything = [api, ...helpers];
  try {
    await api.waitForLine(/api listening on/, 60_000);
    if (workers) {
      await helpers[0]?.waitForLine(/webhook-worker started/, 60_000);
      await helpers[1]?.waitForLine(/cron-runner started/, 60_000);
    }
  } catch (error) {
    everything.forEach((app) => app.child.kill('SIGKILL'));
    await database.drop();
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    process: api,
    async close() {
      await Promise.all(everything.map(stop));
      await database.drop();
    },
  };
}
