import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound, toIso } from '@mrp/platform';
import type { AutomationAction, AutomationTrigger, AutomationView } from './automation-schemas';

export interface AutomationRow {
  id: string;
  organization_id: string;
  name: string;
  enabled: boolean;
  owner_id: string;
  trigger_type: AutomationTrigger['type'];
  hook_secret_hash: string | null;
  hook_secret_prefix: string | null;
  schedule_cron: string | null;
  schedule_timezone: string | null;
  next_run_at: string | Date | null;
  event_pattern: string | null;
  include_own_runs: boolean;
  actions: AutomationAction[];
  max_runs_per_minute: number;
  created_by: string;
  created_at: string | Date;
  updated_at: string | Date;
}

export const AUTOMATION_COLUMNS = `id, organization_id, name, enabled, owner_id, trigger_type, hook_secret_hash, hook_secret_prefix,
  schedule_cron, schedule_timezone, next_run_at, event_pattern, include_own_runs, actions, max_runs_per_minute,
  created_by, created_at, updated_at`;

export function triggerOf(row: AutomationRow): AutomationTrigger {
  if (row.trigger_type === 'schedule') return { type: 'schedule', cron: row.schedule_cron as string, timezone: row.schedule_timezone as string };
  if (row.trigger_type === 'event') return { type: 'event', eventType: row.event_pattern as string, includeOwnRuns: row.include_own_runs };
  return { type: 'http' };
}

/** The columns a trigger is stored in (those of the other trigger types cleared). */
export function triggerColumns(trigger: AutomationTrigger, nextRunAt: Date | null) {
  return {
    trigger_type: trigger.type,
    schedule_cron: trigger.type === 'schedule' ? trigger.cron : null,
    schedule_timezone: trigger.type === 'schedule' ? trigger.timezone : null,
    next_run_at: trigger.type === 'schedule' ? nextRunAt : null,
    event_pattern: trigger.type === 'event' ? trigger.eventType : null,
    include_own_runs: trigger.type === 'event' ? trigger.includeOwnRuns : false,
  };
}

export function toAutomationView(row: AutomationRow): AutomationView {
  const trigger = triggerOf(row);
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    ownerId: row.owner_id,
    trigger:
      trigger.type === 'schedule'
        ? { ...trigger, nextRunAt: row.enabled ? toIso(row.next_run_at) : null }
        : trigger.type === 'http'
          ? { type: 'http', secretPrefix: row.hook_secret_prefix ?? '' }
          : trigger,
    actions: row.actions,
    maxRunsPerMinute: row.max_runs_per_minute,
    createdBy: row.created_by,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

/** The organization's automation, or 404 (another organization's is as absent as a missing one). */
export async function requireAutomation(em: EntityManager, organizationId: string, id: string, { forUpdate = false } = {}): Promise<AutomationRow> {
  const rows = await em.execute<AutomationRow[]>(
    `SELECT ${AUTOMATION_COLUMNS} FROM automations WHERE id = ? AND organization_id = ?${forUpdate ? ' FOR UPDATE' : ''}`,
    [id, organizationId],
  );
  if (!rows[0]) throw notFound('Automation');
  return rows[0];
}
