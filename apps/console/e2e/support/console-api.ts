import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@mrp/platform/testing';
import { freePort } from '@mrp/platform';

export const E2E_ADMIN_EMAIL = 'admin@console-e2e.example';

export interface ConsoleApi {
  url: string;
  process: AppProcess;
  close(): Promise<void>;
}

/**
 * The api as `npm start` runs it (its own process, development mode, the built console at `/`),
 * on a private database cloned from the migrated template.
 */
export async function startConsoleApi(env: Record<string, string> = {}): Promise<ConsoleApi> {
  const database: TestDatabase = await createTestDatabase();
  const port = await freePort();
  const api = startAppProcess('apps/api/src/main.ts', {
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    PORT: String(port),
    DATABASE_URL: database.url,
    AUTH_JWT_SECRET: 'console-e2e-secret-long-enough-for-hs256',
    CRON_SECRET: 'console-e2e-cron-secret-0123456789',
    PLATFORM_ADMIN_EMAILS: E2E_ADMIN_EMAIL,
    FEATURE_FLAGS: 'public-api.enabled=true,public-api.service-accounts=true',
    ...env,
  });
  try {
    await api.waitForLine(/api listening on/, 60_000);
  } catch (error) {
    api.child.kill('SIGKILL');
    await database.drop();
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    process: api,
    async close() {
      if (api.child.exitCode === null && api.child.signalCode === null) {
        api.child.kill('SIGTERM');
        await api.exited;
      }
      await database.drop();
    },
  };
}
