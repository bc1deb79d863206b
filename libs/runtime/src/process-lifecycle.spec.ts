import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { unexpectedFailureProbePath } from '@mrp/runtime/testing';
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
