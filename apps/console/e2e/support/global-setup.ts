import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { setupTestDatabaseServer } from '@mrp/platform/testing';
import { ALL_MODULES } from '@mrp/runtime';

const WORKSPACE_ROOT = resolve(__dirname, '..', '..', '..', '..');

/** The console as npm start builds it (only when stale), and the test database server. */
export default async () => {
  const build = spawnSync(process.execPath, ['--import', 'tsx', join(WORKSPACE_ROOT, 'apps', 'console', 'scripts', 'ensure-build.ts')], {
    cwd: WORKSPACE_ROOT,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('The console could not be built; see the output above');
  await setupTestDatabaseServer(ALL_MODULES);
};
