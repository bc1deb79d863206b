import { ConfigError, type Logger } from '@mrp/platform';

interface RunningProcess {
  logger: Logger;
  stop: () => Promise<void>;
}

/** What the launcher (`npm start`) hears from an app over the IPC channel it opened. */
export interface AppReadyMessage {
  type: 'ready';
}

const NETWORK_FAILURES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN']);

/**
 * A start-up failure as one line with the cause and what to do; no stack reaches the terminal.
 * At start-up the only peer an app connects to is PostgreSQL, so network and login failures
 * are about DATABASE_URL.
 */
export function describeStartupFailure(error: unknown): string {
  const failure = (error ?? {}) as { code?: string; address?: string; port?: number; message?: string };
  const message = (failure.message ?? String(error)).split('\n')[0];
  if (failure.code && NETWORK_FAILURES.has(failure.code)) {
    const where = failure.address ? ` at ${failure.address}${failure.port ? `:${failure.port}` : ''}` : '';
    return `cannot reach PostgreSQL${where} (${failure.code}): is it running, and is DATABASE_URL right?`;
  }
  if (failure.code === '28P01' || failure.code === '28000') {
    return `PostgreSQL refused the login of DATABASE_URL (${message}): check its user and password`;
  }
  if (failure.code === '3D000') return `${message}: create it, or fix the database name in DATABASE_URL`;
  return message;
}

/**
 * Runs an app's main: a configuration error is one clear line on stderr and exit code 1, and so
 * is any other start-up failure; SIGTERM, SIGINT and SIGHUP call `stop` once and exit 0 when it
 * resolves (1 if it throws or hangs). An app started by `npm start` also stops when the launcher
 * goes away, however it died: the IPC channel the launcher opened disconnects.
 * The handlers are in place before start-up begins, so a signal that arrives while the app is
 * still starting stops it cleanly as soon as it is up, instead of killing it mid-way.
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
  process.on('SIGHUP', () => onSignal('SIGHUP'));
  if (process.connected) process.once('disconnect', () => onSignal('launcher gone'));

  start().then(
    (started) => {
      running = started;
      if (requestedSignal) shutdown(started, requestedSignal);
      else if (process.connected) process.send?.({ type: 'ready' } satisfies AppReadyMessage);
    },
    (error: unknown) => {
      const line = error instanceof ConfigError ? `configuration error: ${error.message}` : `failed to start: ${describeStartupFailure(error)}`;
      process.stderr.write(`${name}: ${line}\n`);
      process.exit(1);
    },
  );
}
