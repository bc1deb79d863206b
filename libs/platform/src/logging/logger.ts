import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(options: { level: string; name: string }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    // Credentials never reach the logs, whatever a caller sends.
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'token', 'secret', '*.token', '*.secret'],
      censor: '[redacted]',
    },
  });
}
