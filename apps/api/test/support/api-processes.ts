import { freePort } from '@mrp/platform';
import { startAppProcess, type AppProcess, type TestDatabase } from '@mrp/platform/testing';
import { TEST_JWT_SECRET } from './test-api';

export interface ApiProcess {
  app: AppProcess;
  url: string;
}

/**
 * An api OS process started exactly as deployed, on `database`. It joins `started` as soon as it
 * is spawned, so it is stopped even if it never comes up.
 */
export async function startApiProcess(database: TestDatabase, started: ApiProcess[], env: Record<string, string> = {}): Promise<ApiProcess> {
  const port = await freePort();
  const app = startAppProcess('api', {
    ...database.env,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    PORT: String(port),
    LOG_LEVEL: 'info',
    ...env,
  });
  const process = { app, url: `http://127.0.0.1:${port}` };
  started.push(process);
  const line = await app.waitForLine(/api listening/, 60_000);
  expect((JSON.parse(line) as { port: number }).port).toBe(port);
  return process;
}

export async function stopApiProcess({ app }: ApiProcess): Promise<void> {
  if (app.child.exitCode !== null || app.child.signalCode !== null) return;
  app.child.kill('SIGTERM');
  await app.exited;
}
