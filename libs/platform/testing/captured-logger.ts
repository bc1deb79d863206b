import { Writable } from 'node:stream';
import pino from 'pino';
import type { Logger } from '../src/logging/logger';

/** A logger whose lines are kept, parsed, to check what a test's code logged (and what it did not). */
export function capturedLogger(level = 'info'): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}
