import { spawn } from 'node:child_process';
import cluster from 'node:cluster';
import { ConfigError, createLogger, type Logger } from '@mrp/platform';

interface RunningProcess {
  logger: Logger;
  stop: () => Promise<void>;
  /** The most `stop` may take before the process exits 1 anyway; 15 s when not said. */
  stopTimeoutMs?: number;
}

const DEFAULT_STOP_TIMEOUT_MS = 15_000;

/** How long after its own bound a stopping process that is still there is killed from outside. */
const WATCHDOG_GRACE_SECONDS = 5;

/**
 * The last resort of a stop: a process of its own that kills this one with SIGKILL if it is still
 * there `seconds` after the stop began. The bound's own timer cannot help a process whose main
 * thread is blocked (an npm start app was once seen waiting on a futex 60 s after its launcher
 * was killed), so the watchdog waits outside it: it reads a pipe only this process
 * holds open, and ends without killing anything as soon as that pipe closes, which it does when
 * this process exits however it exits, so the pid it kills can only be this process's.
 */
function armWatchdog(seconds: number): void {
  try {
    const watchdog = spawn('sh', ['-c', 'timeout "$1" cat > /dev/null; [ $? -eq 124 ] && kill -9 "$2"', 'watchdog', String(seconds), String(process.pid)], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    watchdog.once('error', () => undefined);
    watchdog.stdin?.on('error', () => undefined);
    watchdog.unref();
    // The pipe stays open, unwritten, for the process's life; it must not keep the process alive.
    (watchdog.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null)?.unref?.();
  } catch {
    // No shell here: the bound's own timer is all there is.
  }
}

/** Room past the bound on work under way for what comes after it: the job queue, the pool, the LISTEN connection. */
const CLOSING_MS = 5_000;

/**
 * The most a stop may take: the api's drain (SHUTDOWN_DRAIN_SECONDS; the other apps pass 0), the
 * bound on work under way (SHUTDOWN_TIMEOUT_SECONDS), then closing. An orchestrator's kill grace
 * (Kubernetes' terminationGracePeriodSeconds, compose's stop_grace_period) must be longer.
 */
export function stopTimeoutMs({ drainSeconds, shutdownTimeoutSeconds }: { drainSeconds: number; shutdownTimeoutSeconds: number }): number {
  return (drainSeconds + shutdownTimeoutSeconds) * 1000 + CLOSING_MS;
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
 * Whether `work` ended within `ms`. Stopping waits for work under way this long at most: what goes
 * on after that is cut off by what comes next (its jobs run again elsewhere).
 */
export async function finishesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Of CLOSING_MS, what closing the runtime may take; the rest is for the job queue's own stop (1 s at least). */
const RUNTIME_CLOSE_MS = 2_500;

/**
 * Closes what a process holds (its runtime: the job queue, LISTEN, the pool), once the work under
 * way has had its time. A connection still held by work that was cut off would keep the pool from
 * closing: it is left to the exit, and PostgreSQL rolls back its transaction.
 */
export async function closeWithinBound(close: Promise<void>, logger: Logger): Promise<void> {
  if (!(await finishesWithin(close, RUNTIME_CLOSE_MS))) {
    logger.warn('database connections still in use by work that was cut off: they close with the process');
  }
}

/**
 * Runs an app's main: a configuration error is one clear line on stderr and exit code 1, and so
 * is any other start-up failure; SIGTERM, SIGINT and SIGHUP call `stop` once and exit 0 when it
 * resolves (1 if it throws, or takes longer than its `stopTimeoutMs`). An app started by `npm start` also stops when the launcher
 * goes away, however it died: the IPC channel the launcher opened disconnects.
 * The handlers are in place before start-up begins, so a signal that arrives while the app is
 * still starting stops it cleanly as soon as it is up, instead of killing it mid-way.
 */
export function runProcess(name: string, start: () => Promise<RunningProcess>): void {
  let running: RunningProcess | undefined;
  let requestedSignal: string | undefined;
  let stopping = false;

  const shutdown = ({ logger, stop, stopTimeoutMs = DEFAULT_STOP_TIMEOUT_MS }: RunningProcess, signal: string) => {
    if (stopping) return;
    stopping = true;
    // The bound first: with its launcher gone, a process's log lines may have nowhere to go.
    const forceExit = setTimeout(() => {
      logger.error(`${name} did not stop within ${stopTimeoutMs / 1000} s`);
      process.exit(1);
    }, stopTimeoutMs);
    forceExit.unref();
    armWatchdog(Math.ceil(stopTimeoutMs / 1000) + WATCHDOG_GRACE_SECONDS);
    logger.info({ signal }, `${name} stopping`);
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
 * launcher) once every worker is, stops them all on a signal (each within `workerStopTimeoutMs`,
 * its own bound), and stops with exit code 1 when a worker dies unasked, so whatever supervises
 * the app sees the failure.
 */
export function runProcessCluster(
  name: string,
  count: number,
  createLogger: () => Logger,
  start: () => Promise<RunningProcess>,
  workerStopTimeoutMs = DEFAULT_STOP_TIMEOUT_MS,
): void {
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
      // Each worker keeps its own bound; the supervisor outlasts them to see them exit.
      stopTimeoutMs: workerStopTimeoutMs + 2_000,
      async stop() {
        stopping = true;
        for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGTERM');
        await Promise.all(exited);
      },
    };
  });
}
