import { ConfigError, type Logger } from '@mrp/platform';

interface RunningProcess {
  logger: Logger;
  stop: () => Promise<void>;
}

/**
 * Runs an app's main: a configuration error is one clear line on stderr and exit code 1;
 * SIGTERM/SIGINT call `stop` once and exit 0 when it resolves (1 if it throws or hangs).
 * The signal handlers are in place before start-up begins, so a signal that arrives while the
 * app is still starting stops it cleanly as soon as it is up, instead of killing it mid-way.
 */
export function runProcess(name: string, start: () => Promise<RunningProcess>): void {
  let running: RunningProcess | undefined;
  let requestedSignal: string | undefined;
  let stopping = false;

  const shutdown = ({ logger, stop }: RunningProcess, signal: string) => {
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

  const onSignal = (signal: string) => {
    if (running) shutdown(running, signal);
    else requestedSignal ??= signal;
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  start().then(
    (started) => {
      running = started;
      if (requestedSignal) shutdown(started, requestedSignal);
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
