/**
 * Builds the console (`vite build` into apps/console/dist) when the build is missing or older than
 * any of its sources; `--force` builds regardless. `npm start` runs it before the api starts, so
 * the console at `/` is never stale and needs no command of its own.
 *
 * The build goes to a folder of its own and replaces dist/ by renames, so an api serving the old
 * build never sees a half-written one.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const CONSOLE_ROOT = resolve(__dirname, '..');
const WORKSPACE_ROOT = resolve(CONSOLE_ROOT, '..', '..');
export const CONSOLE_DIST = join(CONSOLE_ROOT, 'dist');
const BUILT_MARKER = join(CONSOLE_DIST, 'index.html');

/** What the build reads: the console's own files and field-validation, the one lib it imports. */
const SOURCES = [
  join(CONSOLE_ROOT, 'index.html'),
  join(CONSOLE_ROOT, 'vite.config.mts'),
  join(CONSOLE_ROOT, 'src'),
  join(WORKSPACE_ROOT, 'libs', 'field-validation', 'src'),
  join(WORKSPACE_ROOT, 'package-lock.json'),
];

function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, entry)));
  return newest;
}

export type BuildState = 'missing' | 'stale' | 'fresh';

export function consoleBuildState(): BuildState {
  if (!existsSync(BUILT_MARKER)) return 'missing';
  const builtAt = statSync(BUILT_MARKER).mtimeMs;
  return SOURCES.some((source) => newestChange(source) > builtAt) ? 'stale' : 'fresh';
}

function runVite(outDir: string): Promise<void> {
  const viteBin = join(resolve(require.resolve('vite/package.json'), '..'), 'bin', 'vite.js');
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [viteBin, 'build', '--config', join(CONSOLE_ROOT, 'vite.config.mts'), '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'],
      { cwd: WORKSPACE_ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, NODE_ENV: 'production' } },
    );
    child.once('error', fail);
    child.once('exit', (code, signal) => (code === 0 ? done() : fail(new Error(`vite build failed (${signal ?? `exit code ${code}`})`))));
  });
}

function renameIfPresent(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  }
}

/** Builds when needed; says what it did. */
export async function ensureConsoleBuild({ force = false, say = (line: string) => process.stdout.write(`${line}\n`) } = {}): Promise<BuildState> {
  const state = consoleBuildState();
  if (state === 'fresh' && !force) return state;
  say(state === 'missing' ? 'Building the console (first start)…' : 'Building the console (its sources changed)…');
  const staging = join(CONSOLE_ROOT, `.dist-${process.pid}`);
  const retired = join(CONSOLE_ROOT, `.dist-old-${process.pid}`);
  try {
    await runVite(staging);
    // Another build finishing at the same moment (two starts, a test run) may swap first; its
    // build is as fresh as ours, so losing the race is fine.
    renameIfPresent(CONSOLE_DIST, retired);
    renameIfPresent(staging, CONSOLE_DIST);
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(retired, { recursive: true, force: true });
  }
  say(`Console built into ${relative(WORKSPACE_ROOT, CONSOLE_DIST)}`);
  return state;
}

if (require.main === module) {
  ensureConsoleBuild({ force: process.argv.includes('--force') }).catch((error: unknown) => {
    process.stderr.write(`console build: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
