/**
 * `npm run build:apps`: bundles the api, webhook-worker and cron-runner into `apps/<app>/dist/main.js`,
 * the files the image runs (`npm start` and the process tests build them for themselves).
 */
import { relative } from 'node:path';
import { DEPLOYED_APPS, appBundlePath, buildAppBundle } from '@mrp/platform/deploy';

for (const app of DEPLOYED_APPS) {
  buildAppBundle(app);
  process.stdout.write(`built ${relative(process.cwd(), appBundlePath(app))}\n`);
}
