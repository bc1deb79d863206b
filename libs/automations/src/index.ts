export { automationsModule } from './automations-module';
export { createAutomations, type Automations, type AutomationsDeps } from './automations';
export { triggerHook, type HookCall } from './hooks/hook-trigger';
export { RUN_AUTOMATIONS, MAX_CHAIN_DEPTH } from './runs/run-outcome';
export { RUN_AUTOMATION_SCHEDULES } from './runs/schedule-procedures';
export { TRIGGER_AUTOMATION_HOOKS } from './hooks/hook-trigger';
export { AUTOMATION_RUNS_QUEUE, type RunJob } from './runs/run-queue';
export { AutomationRunner, type AutomationRunnerOptions, type ClaimedRun } from './runs/automation-runner';
