import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { appNodeArguments, buildAppBundle, type DeployedApp } from '../deploy';

export interface AppProcess {
  child: ChildProcess;
  /** Everything written so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with the first stdout line matching `pattern` (JSON log lines included). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /**
   * Resolves with the first `count` stdout lines matching `pattern`. Lines written by different
   * processes sharing the pipe (cluster workers) arrive in no fixed order, so wait for each.
   */
  waitForLines(pattern: RegExp, count: number, timeoutMs?: number): Promise<string[]>;
  /** Resolves with the exit code (or the signal name) and everything written to stderr. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

const WORKSPACE_ROOT = resolve(__dirname, '..', '..', '..');

/**
 * Children still running. A test that fails before it stops its process would otherwise leave
 * it running, and its open pipes keep the test runner from ever exiting; so every test file
 * that starts processes kills what is left once its tests are done.
 */
const running = new Set<ChildProcess>();
const detachedChildren = new WeakSet<ChildProcess>();
// Past the 5 s between SIGTERM and SIGKILL, with room: a hook's default timeout is those same 5 s.
if (typeof afterAll === 'function') afterAll(() => Promise.all([...running].map(stopLeftOver)), 15_000);

/** SIGTERM (so a cluster primary stops its workers), then SIGKILL if it is still there after 5 s. */
async function stopLeftOver(child: ChildProcess): Promise<void> {
  const gone = new Promise((done) => child.once('exit', done));
  if (child.exitCode !== null || child.signalCode !== null) return;
  signal(child, 'SIGTERM');
  const timer = setTimeout(() => signal(child, 'SIGKILL'), 5_000);
  await gone;
  clearTimeout(timer);
}

function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    // A detached child leads its own process group: signal the whole group, as a terminal would.
    if (detachedChildren.has(child) && child.pid !== undefined) process.kill(-child.pid, name);
    else child.kill(name);
  } catch {
    // It exited between the check and the signal.
  }
}

export interface AppProcessOptions {
  /** Extra command-line arguments after the script. */
  args?: string[];
  /** Its own process group (the group id is its pid), to signal it as a terminal would. */
  detached?: boolean;
  /**
   * A command that runs node in its place, keeping its process id (`ip netns exec <name>` runs it
   * in a network namespace): signals sent to the child still reach node itself.
   */
  runUnder?: string[];
}

/** Apps bundled by this test file: a bundle is built from the sources under test once per file. */
const bundled = new Set<DeployedApp>();

/** Runs an app exactly as it is deployed: its bundle, built from the current sources, under `node`. */
export function startAppProcess(app: DeployedApp, env: Record<string, string>, options: AppProcessOptions = {}): AppProcess {
  if (!bundled.has(app)) {
    buildAppBundle(app);
    bundled.add(app);
  }
  // An app without NODE_ENV is production; a test wanting development (logs at info, a made-up
  // cursor secret) says so outright.
  return startProcess([...appNodeArguments(app), ...(options.args ?? [])], { NODE_ENV: 'development', ...env }, options);
}

/** Runs a TypeScript script (the launcher, bootstrap) as `npm run` does: `node --import tsx`. */
export function startScriptProcess(script: string, env: Record<string, string>, options: AppProcessOptions = {}): AppProcess {
  return startProcess(['--import', 'tsx', script, ...(options.args ?? [])], env, options);
}

function startProcess(nodeArguments: string[], env: Record<string, string>, options: AppProcessOptions): AppProcess {
  const [command, ...commandArguments] = [...(options.runUnder ?? []), process.execPath, ...nodeArguments];
  const child = spawn(command, commandArguments, {
    cwd: WORKSPACE_ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  running.add(child);
  if (options.detached) detachedChildren.add(child);
  child.once('exit', () => running.delete(child));
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    listeners.forEach((listener) => listener());
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((done) => {
    child.once('exit', (code, signal) => done({ code, signal, stderr }));
  });
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    async waitForLine(pattern, timeoutMs = 20_000) {
      const [line] = await this.waitForLines(pattern, 1, timeoutMs);
      return line;
    },
    waitForLines(pattern, count, timeoutMs = 20_000) {
      return new Promise((done, fail) => {
        const check = () => {
          const lines = stdout.split('\n').filter((candidate) => pattern.test(candidate));
          if (lines.length >= count) {
            cleanup();
            done(lines.slice(0, count));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          fail(new Error(`Fewer than ${count} lines matching ${pattern} within ${timeoutMs} ms; stdout: ${stdout}; stderr: ${stderr}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
  };
}
