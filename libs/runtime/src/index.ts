export { createRuntime, type Runtime } from './runtime';
export { ALL_MODULES } from './modules';
export { taskQueue, type ScheduledTask } from './scheduled-tasks';
export { invokeAsSystem, type SystemCall } from './invoke-as-system';
export { runProcess, runProcessCluster, closeWithinBound, describeStartupFailure, finishesWithin, stopTimeoutMs } from './process-lifecycle';
export { createAutomationRunner, startAutomationRunner } from './automation-runner-as-system';
export { resolveTaskSchedules, scheduleVariable, type TaskSchedule } from './task-schedules';
export { runEmailJob, workEmailJobs } from './email-jobs';
