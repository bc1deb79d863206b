import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import { logDestination, sendLogsToFile, shownOnTerminal } from './app-logs';

describe("npm start's app logs", () => {
  it('go to files in development and to the terminal elsewhere, unless START_LOGS says otherwise', () => {
    expect(logDestination({}, 'development')).toBe('file');
    expect(logDestination({}, 'production')).toBe('terminal');
    expect(logDestination({ START_LOGS: 'terminal' }, 'development')).toBe('terminal');
    expect(logDestination({ START_LOGS: 'file' }, 'production')).toBe('file');
    expect(() => logDestination({ START_LOGS: 'both' }, 'development')).toThrow('START_LOGS must be terminal or file; got "both"');
  });

  it('show errors, fatal lines and non-JSON output on the terminal, never request lines', () => {
    expect(shownOnTerminal('{"level":30,"msg":"request","path":"/rpc/me.get"}')).toBe(false);
    expect(shownOnTerminal('{"level":40,"msg":"slow"}')).toBe(false);
    expect(shownOnTerminal('{"level":50,"msg":"unexpected error"}')).toBe(true);
    expect(shownOnTerminal('{"level":60,"msg":"cannot start"}')).toBe(true);
    expect(shownOnTerminal('TypeError: boom')).toBe(true);
    expect(shownOnTerminal('')).toBe(false);
  });

  it('are written line by line into a private file emptied at each start', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'mrp-logs-')), 'logs');
    try {
      const write = async (lines: string[]) => {
        const output = new PassThrough();
        const terminal = new PassThrough();
        const shown: string[] = [];
        terminal.on('data', (chunk: Buffer) => shown.push(chunk.toString()));
        const path = sendLogsToFile('api', output, dir, terminal);
        for (const line of lines) output.write(`${line}\n`);
        output.end();
        await once(output, 'end');
        await new Promise((wake) => setImmediate(wake));
        return { path, shown };
      };
      await write(['{"level":30,"msg":"old run"}']);
      const { path, shown } = await write(['{"level":30,"msg":"request"}', '{"level":50,"msg":"failed"}']);
      expect(readFileSync(path, 'utf8')).toBe('{"level":30,"msg":"request"}\n{"level":50,"msg":"failed"}\n');
      expect(shown).toEqual(['{"level":50,"msg":"failed"}\n']);
      expect(statSync(path).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  });
});
