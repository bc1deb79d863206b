/**
 * How the three server apps run as deployed: each app's `src/main.ts` and the libs it imports,
 * bundled by esbuild into one CommonJS file, `apps/<app>/dist/main.js`, that plain `node` runs.
 * Packages stay in node_modules. Running the TypeScript through a loader instead costs the
 * loader's helpers on every call (decision 126), so `npm start`, the image, the process tests and
 * the benchmarks all run these bundles.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

export const DEPLOYED_APPS = ['api', 'webhook-worker', 'cron-runner'] as const;
export type DeployedApp = (typeof DEPLOYED_APPS)[number];

const WORKSPACE_ROOT = resolve(__dirname, '..', '..', '..');

/** The bundle `node` runs for `app`. */
export function appBundlePath(app: DeployedApp): string {
  return join(WORKSPACE_ROOT, 'apps', app, 'dist', 'main.js');
}

/** Node's arguments to run `app`: stack traces in logs point into the TypeScript sources. */
export function appNodeArguments(app: DeployedApp): string[] {
  return ['--enable-source-maps', appBundlePath(app)];
}

/** Bundles `app` from its sources (about 0.15 s). */
export function buildAppBundle(app: DeployedApp): void {
  buildBundle(join(WORKSPACE_ROOT, 'apps', app, 'src', 'main.ts'), appBundlePath(app));
}

/**
 * Bundles the TypeScript program `entry` (workspace paths) into `outfile`, as the apps are. Each
 * file is written beside its final name and renamed into place, so a process starting meanwhile,
 * or a second build running at once, never reads half a file.
 */
export function buildBundle(entry: string, outfile: string): void {
  const { outputFiles } = buildSync({
    entryPoints: [entry],
    outfile,
    write: false,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // The workspace libs are bundled (tsconfig paths); every package is required from node_modules.
    packages: 'external',
    tsconfig: join(WORKSPACE_ROOT, 'tsconfig.base.json'),
    sourcemap: 'linked',
    logLevel: 'silent',
  });
  // The map first: a bundle in place always finds its map.
  for (const file of [...outputFiles].sort((a, b) => Number(b.path.endsWith('.map')) - Number(a.path.endsWith('.map')))) {
    // Unique to this write: two builders never share a staging file, not even the pid 1s of two
    // containers sharing a checkout.
    const staging = `${file.path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      mkdirSync(dirname(file.path), { recursive: true });
      writeFileSync(staging, file.contents);
      renameSync(staging, file.path);
    } finally {
      rmSync(staging, { force: true });
    }
  }
}
