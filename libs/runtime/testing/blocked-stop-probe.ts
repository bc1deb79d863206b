// A process run by runProcess whose stop blocks its main thread for good (when told to by
// argv[2] = 'blocked'), as a synchronous write to a full pipe nobody reads would; it prints
// "ready" once running.
import { createLogger } from '@mrp/platform';
import { runProcess } from '../src/process-lifecycle';

const blocked = process.argv[2] === 'blocked';
runProcess('probe', async () => {
  const logger = createLogger({ name: 'probe', level: 'silent' });
  setInterval(() => undefined, 60_000);
  process.stdout.write('ready\n');
  return {
    logger,
    stopTimeoutMs: 1_000,
    stop: async () => {
      if (blocked) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    },
  };
});
