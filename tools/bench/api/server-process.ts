import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { freePort } from '@mrp/platform';
import { appNodeArguments, buildAppBundle, buildBundle } from '@mrp/platform/deploy';

const ROOT = resolve(__dirname, '../../..');

export interface ServerProcess {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export const BENCH_ADMIN = { sub: '0190bbbb-0000-7000-8000-00000000be01', email: 'bench-admin@bench.example', name: 'Bench Admin' };

/** The api's settings for a benchmark: production, quiet, the rate limit raised out of the way. */
export function apiEnvironment(databaseUrl: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
    CURSOR_SECRET: randomBytes(32).toString('hex'),
    PLATFORM_ADMIN_EMAILS: BENCH_ADMIN.email,
    PUBLIC_API_RATE_PER_SECOND: '1000000',
    PUBLIC_API_BURST: '1000000',
    LOG_LEVEL: 'warn',
    // No load balancer takes a benchmark's api out: it stops at once, as in development.
    SHUTDOWN_DRAIN_SECONDS: '0',
  };
}

async function waitUntilListening(name: string, child: ChildProcess, url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`${name} exited (${exited}) before listening`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((wake) => setTimeout(wake, 200));
    }
  }
  throw new Error(`${name} did not listen within 60 s`);
}

async function start(name: string, nodeArguments: string[], env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, nodeArguments, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilListening(name, child, `${url}/health`);
  return {
    name,
    url,
    pid: child.pid ?? 0,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

let apiBuilt = false;

/** The api as deployed: its bundle (`apps/api/dist/main.js`) in its own process, `API_WORKERS` of them behind one port. */
export function startApiProcess(name: string, env: Record<string, string>, nodeOptions: string[] = []): Promise<ServerProcess> {
  if (!apiBuilt) buildAppBundle('api');
  apiBuilt = true;
  return start(name, [...nodeOptions, ...appNodeArguments('api')], env);
}

const FLOOR_BUNDLE = resolve(ROOT, '.bench', 'floor-server.js');
let floorBuilt = false;

/** The floor, bundled as the api is, so that neither pays for a TypeScript loader. */
export function startFloorProcess(name: string, databaseUrl: string, options: { poolSize: number; bucket: boolean }): Promise<ServerProcess> {
  if (!floorBuilt) buildBundle(resolve(ROOT, 'tools/bench/api/floor-server.ts'), FLOOR_BUNDLE);
  floorBuilt = true;
  return start(name, [FLOOR_BUNDLE], { DATABASE_URL: databaseUrl, POOL_SIZE: String(options.poolSize), FLOOR_BUCKET: options.bucket ? '1' : '0' });
}

/** Another build's api bundle (an earlier commit's), run as the api is, to compare in the same rounds. */
export function startOtherApiProcess(name: string, bundle: string, env: Record<string, string>): Promise<ServerProcess> {
  return start(name, ['--enable-source-maps', resolve(bundle)], env);
}
