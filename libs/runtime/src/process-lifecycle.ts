import cluster from 'node:cluster';
import { ConfigError, createLogger, type Logger } from '@mrp/platform';

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
  // Every line the process prints is a JSON log line: Node's own warnings, and the error that ends it.
  const fallbackLogger = createLogger({ name, level: 'info' });
  const logger = () => running?.logger ?? fallbackLogger;
  process.removeAllListeners('warning');
  process.on('warning', (warning) => logger().warn({ warning: { name: warning.name, message: warning.message } }, 'process warning'));
  const stopOnUnexpected = (error: unknown) => {
    logger().fatal({ err: error }, `${name} stopped on an unexpected error`);
    process.exit(1);
  };
  process.on('uncaughtException', stopOnUnexpected);
  process.on('unhandledRejection', stopOnUnexpected);
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

/**
 * `runProcess` for an app that runs as `count` processes sharing its listening port (node:cluster).
 * With one, the process simply runs `start`. With more, this process only supervises: it forks
 * the workers, each of which runs `start` under `runProcess`; it is ready (and tells the
 * launcher) once every worker is, stops them all on a signal, and stops with exit code 1 when a
 * worker dies unasked, so whatever supervises the app sees the failure.
 */
export function runProcessCluster(name: string, count: number, createLogger: () => Logger, start: () => Promise<RunningProcess>): void {
  if (count <= 1 || !cluster.isPrimary) {
    runProcess(name, start);
    return;
  }
  runProcess(name, async () => {
    const logger = createLogger();
    const workers = Array.from({ length: count }, () => cluster.fork());
    let stopping = false;
    const exited = workers.map((worker) => new Promise<void>((resolve) => worker.once('exit', () => resolve())));
    await Promise.all(
      workers.map(
        (worker, index) =>
          new Promise<void>((resolve, reject) => {
            worker.on('message', (message: AppReadyMessage) => {
              if (message?.type === 'ready') resolve();
            });
            worker.once('exit', (code) => reject(new Error(`worker ${index + 1} of ${count} exited (${code ?? 'signal'}) while starting`)));
          }),
      ),
    ).catch(async (error: unknown) => {
      for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGTERM');
      await Promise.all(exited);
      throw error;
    });
    for (const [index, worker] of workers.entries()) {
      worker.once('exit', (code, signal) => {
        if (stopping) return;
        logger.error({ worker: index + 1, code, signal }, `${name} worker died; stopping every worker`);
        stopping = true;
        for (const other of workers) if (!other.isDead()) other.process.kill('SIGTERM');
        void Promise.all(exited).then(() => process.exit(1));
      });
    }
    logger.info({ workers: count }, `${name} running ${count} workers`);
    return {
      logger,
      async stop() {
        stopping = true;
        for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGTERM');
        await Promise.all(exited);
      },
    };
  });
}
