import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export interface AppProcess {
  child: ChildProcess;
  /** Everything written so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with the first stdout line matching `pattern` (JSON log lines included). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (or the signal name) and everything written to stderr. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

const WORKSPACE_ROOT = resolve(__dirname, '..', '..', '..');

export interface AppProcessOptions {
  /** Extra command-line arguments after the script. */
  args?: string[];
  /** Its own process group (the group id is its pid), to signal it as a terminal would. */
  detached?: boolean;
}

/** Runs an app's main.ts (or a script) exactly as it is deployed (`node --import tsx`), for start/stop tests. */
export function startAppProcess(mainFile: string, env: Record<string, string>, options: AppProcessOptions = {}): AppProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', mainFile, ...(options.args ?? [])], {
    cwd: WORKSPACE_ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
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
    waitForLine(pattern, timeoutMs = 20_000) {
      return new Promise((done, fail) => {
        const check = () => {
          const line = stdout.split('\n').find((candidate) => pattern.test(candidate));
          if (line !== undefined) {
            cleanup();
            done(line);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          fail(new Error(`No line matching ${pattern} within ${timeoutMs} ms; stdout: ${stdout}; stderr: ${stderr}`));
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
