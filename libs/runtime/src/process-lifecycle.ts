import { ConfigError, type Logger } from '@mrp/platform';

/**
 * Runs an app's main: a configuration error is one clear line on stderr and exit code 1;
 * SIGTERM/SIGINT call `stop` once and exit 0 when it resolves (1 if it throws or hangs).
 */
export function runProcess(name: string, start: () => Promise<{ logger: Logger; stop: () => Promise<void> }>): void {
  start().then(
    ({ logger, stop }) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, `${name} stopping`);
        const forceExit = setTimeout(() => {
          logger.error(`${name} did not stop within 15 s`);
          process.exit(1);
        }, 15_000);
        forceExit.unref();
        stop().then(
          () => {
            logger.info(`${name} stopped`);
            process.exit(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, `${name} failed to stop cleanly`);
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    },
    (error: unknown) => {
      if (error instanceof ConfigError) {
        process.stderr.write(`${name}: configuration error: ${error.message}\n`);
      } else {
        process.stderr.write(`${name}: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      }
      process.exit(1);
    },
  );
}
