import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { unexpectedFailureProbePath } from '@mrp/runtime/testing';

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
