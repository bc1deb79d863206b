import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { blockedStopProbePath, unexpectedFailureProbePath } from '@mrp/runtime/testing';
import { finishesWithin, stopTimeoutMs } from './process-lifecycle';

function runProbe(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', unexpectedFailureProbePath], {
      cwd: resolve(__dirname, '../../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
}

describe('a process run by runProcess', () => {
  it("prints Node's warnings and the error that ends it as JSON log lines only, and exits 1", async () => {
    const { code, stdout, stderr } = await runProbe();
    expect(code).toBe(1);
    expect(stderr).toBe('');
    const lines = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; name: string; msg: string; warning?: { message: string }; err?: { message: string } });
    expect(lines.map(({ level, name, msg }) => ({ level, name, msg }))).toEqual([
      { level: 40, name: 'probe', msg: 'process warning' },
      { level: 60, name: 'probe', msg: 'probe stopped on an unexpected error' },
    ]);
    expect(lines[0].warning?.message).toBe('a probe warning');
    expect(lines[1].err?.message).toBe('probe failure');
  }, 30_000);
});

/** Processes whose command line names `pid` as the one to kill: a stop's watchdog still waiting. */
function watchdogsOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        return args.includes('watchdog') && args.includes(String(pid));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The probe, sent SIGTERM once it is running: how it ended, and how long after the signal. */
function runStopProbe(mode: 'blocked' | 'clean'): { pid: number; exited: Promise<{ code: number | null; signal: string | null; afterMs: number }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', blockedStopProbePath, mode], { cwd: resolve(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<{ code: number | null; signal: string | null; afterMs: number }>((done) => {
    let signalledAt = 0;
    child.once('exit', (code, signal) => done({ code, signal, afterMs: Date.now() - signalledAt }));
    child.stdout.on('data', (chunk: Buffer) => {
      if (!chunk.toString().includes('ready') || signalledAt) return;
      signalledAt = Date.now();
      child.kill('SIGTERM');
    });
  });
  return { pid: child.pid as number, exited };
}

describe('a stop that never ends', () => {
  it('is ended from outside its blocked main thread: SIGKILL a few seconds after its bound', async () => {
    const probe = runStopProbe('blocked');
    const { code, signal, afterMs } = await probe.exited;
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });
    // Its bound is 1 s, then 5 s of grace: the watchdog's timeout is whole seconds.
    expect(afterMs).toBeGreaterThanOrEqual(5_000);
    expect(afterMs).toBeLessThan(20_000);
  }, 30_000);

  it('leaves no watchdog behind a stop that ends', async () => {
    const probe = runStopProbe('clean');
    expect(await probe.exited).toMatchObject({ code: 0, signal: null });
    for (let attempt = 0; attempt < 50 && watchdogsOf(probe.pid).length > 0; attempt++) await new Promise((wake) => setTimeout(wake, 100));
    expect(watchdogsOf(probe.pid)).toEqual([]);
  }, 30_000);
});

describe('the bounds of a stop', () => {
  it('lets a process take its drain, the bound on work under way and 5 s of closing before it is forced out', () => {
    expect(stopTimeoutMs({ drainSeconds: 10, shutdownTimeoutSeconds: 10 })).toBe(25_000);
    expect(stopTimeoutMs({ drainSeconds: 0, shutdownTimeoutSeconds: 10 })).toBe(15_000);
  });

  it('says whether work ended within its bound, and stops waiting at the bound', async () => {
    expect(await finishesWithin(Promise.resolve(), 50)).toBe(true);
    const startedAt = Date.now();
    expect(await finishesWithin(new Promise(() => undefined), 50)).toBe(false);
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    // A failure is the caller's to see (runProcess then says the stop failed, and exits 1).
    await expect(finishesWithin(Promise.reject(new Error('failed')), 50)).rejects.toThrow('failed');
  });
});
