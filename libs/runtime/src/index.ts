export { createRuntime, type Runtime } from './runtime';
export { ALL_MODULES } from './modules';
export type { ScheduledTask } from './scheduled-tasks';
export { runProcess, describeStartupFailure } from './process-lifecycle';
