// A process run by runProcess that emits a Node warning, then fails on a promise nobody handles.
import { createLogger } from '@mrp/platform';
import { runProcess } from '../src/process-lifecycle';

runProcess('probe', async () => {
  const logger = createLogger({ name: 'probe', level: 'info' });
  setTimeout(() => process.emitWarning('a probe warning'), 10);
  setTimeout(() => void Promise.reject(new Error('probe failure')), 100);
  return { logger, stop: async () => undefined };
});
