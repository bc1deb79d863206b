import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { ConfigError } from '@mrp/platform';

/**
 * Where `npm start` puts its apps' JSON log lines. In development they go to one file per app under
 * the local data folder (`.data/logs/api.log`), written afresh at each start, so the launcher's own
 * lines (the demo key, the address) stay in sight; errors are still shown on the terminal.
 * START_LOGS=terminal, and production, keep every line on the terminal as deployed apps do.
 */
export type LogDestination = 'terminal' | 'file';

export function logDestination(env: NodeJS.ProcessEnv, nodeEnv: string): LogDestination {
  const chosen = env.START_LOGS;
  if (chosen === 'terminal' || chosen === 'file') return chosen;
  if (chosen !== undefined && chosen !== '') throw new ConfigError(`START_LOGS must be terminal or file; got "${chosen}"`);
  return nodeEnv === 'development' ? 'file' : 'terminal';
}

export function logsDir(dataDir: string): string {
  return join(dataDir, 'logs');
}

/** pino's error (50) and fatal (60) lines, and any line that is not a JSON log line (a crash in its own words). */
export function shownOnTerminal(line: string): boolean {
  try {
    const level = (JSON.parse(line) as { level?: unknown }).level;
    return typeof level !== 'number' || level >= 50;
  } catch {
    return line.trim() !== '';
  }
}

/**
 * Copies `output` line by line into `<dir>/<name>.log` (created private, emptied first), and the
 * lines shownOnTerminal() picks to `terminal`. Written synchronously: the launcher exits right
 * after its apps, and a buffered line would be lost.
 */
export function sendLogsToFile(name: string, output: Readable, dir: string, terminal: NodeJS.WritableStream): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${name}.log`);
  const fd = openSync(path, 'w', 0o600);
  const lines = createInterface({ input: output, crlfDelay: Infinity });
  lines.on('line', (line) => {
    writeSync(fd, `${line}\n`);
    if (shownOnTerminal(line)) terminal.write(`${line}\n`);
  });
  lines.once('close', () => closeSync(fd));
  return path;
}
