/** The automation procedures' answers as the server declares them (automations lib), restated for the browser. */

export type TriggerType = 'http' | 'schedule' | 'event';
export type ActionType = 'create-record' | 'update-record' | 'notify';
export type RunStatus = 'queued' | 'succeeded' | 'failed' | 'skipped';

export interface TriggerView {
  type: TriggerType;
  cron?: string;
  timezone?: string;
  nextRunAt?: string | null;
  eventType?: string;
  includeOwnRuns?: boolean;
  /** http: the first characters of the hook secret. */
  secretPrefix?: string;
}

/** An action as `automations.create` takes it and the views return it. */
export interface ActionDefinition {
  type: ActionType;
  model?: string;
  data?: Record<string, unknown>;
  recordId?: string;
  filter?: Record<string, unknown>;
  userIds?: string[];
  role?: string;
  title?: string;
  body?: string;
}

/** `automations.list` items, `automations.get` */
export interface Automation {
  id: string;
  name: string;
  enabled: boolean;
  ownerId: string;
  trigger: TriggerView;
  actions: ActionDefinition[];
  maxRunsPerMinute: number;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** `automations.create` / `automations.update` / `automations.rotateSecret`: an http trigger's secret, shown once. */
export interface AutomationWithSecret extends Automation {
  secret?: string;
}

export interface ActionResult {
  type: ActionType;
  status: 'succeeded' | 'failed' | 'rolled-back' | 'not-run';
  recordId?: string;
  notified?: number;
  error?: { code: string; message: string };
}

/** `automations.runs.list` items */
export interface AutomationRun {
  id: string;
  automationId: string;
  trigger: 'http' | 'schedule' | 'event' | 'manual';
  status: RunStatus;
  input: unknown;
  eventId: string | null;
  eventType: string | null;
  chainDepth: number;
  triggeredBy: string | null;
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  actions: ActionResult[];
}
