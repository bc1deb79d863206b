import {
  badRequest,
  conflict,
  defineProcedure,
  newId,
  notFound,
  validationFailed,
  type InvocationDeps,
  type JobQueue,
  type ProcedureContext,
  type ProcedureRegistry,
} from '@mrp/platform';
import { createEvent } from '@mrp/events';
import type { RowAccessRoles } from '@mrp/authz';
import { enqueueRuns } from '../runs/run-queue';
import { generateHookSecret } from '../hooks/hook-secret';
import {
  AutomationPageSchema,
  AutomationViewSchema,
  AutomationWithSecretSchema,
  DEFAULT_MAX_RUNS_PER_MINUTE,
  DeletedAutomationSchema,
  QueuedRunSchema,
  type AutomationTrigger,
  type AutomationView,
} from './automation-schemas';
import { AutomationByIdInput, AutomationsCreateInput, AutomationsListInput, AutomationsRunInput, AutomationsUpdateInput } from './automation-inputs';
import { AUTOMATION_COLUMNS, requireAutomation, toAutomationView, triggerColumns, triggerOf, type AutomationRow } from './automation-rows';
import { checkDefinition } from './check-definition';
import { readTargetModels } from './target-models';
import { assertMayActAsCurrentOwner, assertMayActAsOwner } from './owner-authority';
import { nextSlot } from './schedule';
import { assertStorableJson } from './storable-json';

export const MANAGE_AUTOMATIONS = 'automations.manage';
/** Per organization: enough for any team, few enough that the event outbox's lookup stays small. */
export const MAX_AUTOMATIONS_PER_ORGANIZATION = 500;

type Context = ProcedureContext<'organization'>;

function firstSlot(trigger: AutomationTrigger): Date | null {
  return trigger.type === 'schedule' ? nextSlot(trigger.cron, trigger.timezone, new Date()) : null;
}

export const listAutomations = defineProcedure({
  name: 'automations.list',
  summary: "The organization's automations, oldest first",
  scope: 'organization',
  permission: MANAGE_AUTOMATIONS,
  readOnly: true,
  input: AutomationsListInput,
  output: AutomationPageSchema,
  async handler(ctx, input) {
    const limit = input.limit ?? 50;
    const rows = await ctx.em.execute<AutomationRow[]>(
      `SELECT ${AUTOMATION_COLUMNS} FROM automations WHERE organization_id = ? AND id > ? ORDER BY id LIMIT ?`,
      [ctx.organizationId, input.cursor ?? '00000000-0000-0000-0000-000000000000', limit + 1],
    );
    const page = rows.slice(0, limit);
    return { items: page.map(toAutomationView), nextCursor: rows.length > limit ? page[page.length - 1].id : null };
  },
});

export const getAutomation = defineProcedure({
  name: 'automations.get',
  summary: 'One automation',
  scope: 'organization',
  permission: MANAGE_AUTOMATIONS,
  readOnly: true,
  input: AutomationByIdInput,
  output: AutomationViewSchema,
  async handler(ctx, input) {
    return toAutomationView(await requireAutomation(ctx.em, ctx.organizationId, input.id));
  },
});

/** What the definition procedures are built with: the registry data-models' catalog is read through. */
export interface DefinitionDeps {
  rowAccessRoles: RowAccessRoles;
  /** Where runs are queued. */
  jobs: JobQueue;
  procedures(): ProcedureRegistry;
  invocation(): InvocationDeps;
}

const createAutomation = (deps: DefinitionDeps) => defineProcedure({
  name: 'automations.create',
  summary: 'Creates an automation: one trigger (http, schedule or event), actions run in order as its owner',
  scope: 'organization',
  permission: MANAGE_AUTOMATIONS,
  input: AutomationsCreateInput,
  output: AutomationWithSecretSchema,
  async handler(ctx, input): Promise<AutomationView & { secret?: string }> {
    const { trigger, actions } = checkDefinition(input.trigger, input.actions, await readTargetModels(ctx, deps, input.actions));
    const ownerId = input.ownerId ?? ctx.principal.userId;
    await assertMayActAsOwner(ctx.em, deps.rowAccessRoles, ctx.principal, ctx.organizationId, ownerId, 'create');
    // Two creations at once must not both pass the limit: they queue on the organization's lock.
    await ctx.em.execute("SELECT pg_advisory_xact_lock(hashtextextended('automations:' || ?, 0))", [ctx.organizationId]);
    const [{ count }] = await ctx.em.execute<Array<{ count: number }>>('SELECT count(*)::int AS count FROM automations WHERE organization_id = ?', [
      ctx.organizationId,
    ]);
    if (count >= MAX_AUTOMATIONS_PER_ORGANIZATION) throw conflict(`An organization has at most ${MAX_AUTOMATIONS_PER_ORGANIZATION} automations`);

    const hook = trigger.type === 'http' ? generateHookSecret() : null;
    const columns = triggerColumns(trigger, firstSlot(trigger));
    const maxRuns = input.maxRunsPerMinute ?? DEFAULT_MAX_RUNS_PER_MINUTE;
    const [row] = await ctx.em.execute<AutomationRow[]>(
      `INSERT INTO automations (id, organization_id, name, enabled, owner_id, trigger_type, hook_secret_hash, hook_secret_prefix,
                                schedule_cron, schedule_timezone, next_run_at, event_pattern, include_own_runs, actions,
                                max_runs_per_minute, run_tokens, created_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)
       RETURNING ${AUTOMATION_COLUMNS}`,
      [
        newId(),
        ctx.organizationId,
        input.name.trim(),
        input.enabled ?? true,
        ownerId,
        columns.trigger_type,
        hook?.hash ?? null,
        hook?.prefix ?? null,
        columns.schedule_cron,
        columns.schedule_timezone,
        columns.next_run_at,
        columns.event_pattern,
        columns.include_own_runs,
        JSON.stringify(actions),
        maxRuns,
        maxRuns,
        ctx.principal.userId,
      ],
    );
    ctx.emit(createEvent('automation.created', { automationId: row.id, organizationId: ctx.organizationId, name: row.name }, { organizationId: ctx.organizationId }));
    return { ...toAutomationView(row), ...(hook ? { secret: hook.secret } : {}) };
  },
});

/** Changes that lend the owner's authority to something new; renaming or disabling lends nothing. */
const LENDS_AUTHORITY = ['ownerId', 'trigger', 'actions', 'maxRunsPerMinute'] as const;

const updateAutomation = (deps: DefinitionDeps) => defineProcedure({
  name: 'automations.update',
  summary: 'Changes an automation; a new http trigger gets a new secret, shown once',
  scope: 'organization',
  permission: MANAGE_AUTOMATIONS,
  input: AutomationsUpdateInput,
  output: AutomationWithSecretSchema,
  async handler(ctx, input): Promise<AutomationView & { secret?: string }> {
    const { id, ...changes } = input;
    if (Object.keys(changes).length === 0) throw badRequest('Nothing to change');
    const current = await requireAutomation(ctx.em, ctx.organizationId, id, { forUpdate: true });
    const currentTrigger = triggerOf(current);
    // Only new actions are checked against today's models: a model archived since must not block a rename or a pause.
    const targets = input.actions === undefined ? undefined : await readTargetModels(ctx, deps, input.actions);
    const definition = checkDefinition(input.trigger ?? currentTrigger, input.actions ?? current.actions, targets);
    if (input.ownerId !== undefined && input.ownerId !== current.owner_id) {
      await assertMayActAsOwner(ctx.em, deps.rowAccessRoles, ctx.principal, ctx.organizationId, input.ownerId, 'hand over');
    } else if (LENDS_AUTHORITY.some((key) => input[key] !== undefined) || (input.enabled === true && !current.enabled)) {
      await assertMayActAsCurrentOwner(ctx.em, deps.rowAccessRoles, ctx.principal, ctx.organizationId, current.owner_id, 'change');
    }

    const trigger = definition.trigger;
    const triggerChanged = JSON.stringify(trigger) !== JSON.stringify(currentTrigger);
    const enabled = input.enabled ?? current.enabled;
    const hook = trigger.type === 'http' && currentTrigger.type !== 'http' ? generateHookSecret() : null;
    // A schedule starts from now when it changes or wakes up: slots missed while off are not caught up.
    const rescheduled = triggerChanged || (enabled && !current.enabled);
    const columns = triggerColumns(trigger, rescheduled ? firstSlot(trigger) : current.next_run_at === null ? null : new Date(current.next_run_at));
    const maxRuns = input.maxRunsPerMinute ?? current.max_runs_per_minute;
    const [row] = await ctx.em.execute<AutomationRow[]>(
      `UPDATE automations
          SET name = ?, enabled = ?, owner_id = ?, trigger_type = ?,
              hook_secret_hash = CASE WHEN ? = 'http' THEN coalesce(?, hook_secret_hash) END,
              hook_secret_prefix = CASE WHEN ? = 'http' THEN coalesce(?, hook_secret_prefix) END,
              schedule_cron = ?, schedule_timezone = ?, next_run_at = ?, event_pattern = ?, include_own_runs = ?,
              actions = ?::jsonb, max_runs_per_minute = ?, run_tokens = LEAST(run_tokens, ?), updated_at = now()
        WHERE id = ?
        RETURNING ${AUTOMATION_COLUMNS}`,
      [
        input.name?.trim() ?? current.name,
        enabled,
        input.ownerId ?? current.owner_id,
        columns.trigger_type,
        columns.trigger_type,
        hook?.hash ?? null,
        columns.trigger_type,
        hook?.prefix ?? null,
        columns.schedule_cron,
        columns.schedule_timezone,
        columns.next_run_at,
        columns.event_pattern,
        columns.include_own_runs,
        JSON.stringify(definition.actions),
        maxRuns,
        maxRuns,
        id,
      ],
    );
    const changed = [
      row.name !== current.name && 'name',
      row.enabled !== current.enabled && 'enabled',
      row.owner_id !== current.owner_id && 'ownerId',
      triggerChanged && 'trigger',
      JSON.stringify(row.actions) !== JSON.stringify(current.actions) && 'actions',
      row.max_runs_per_minute !== current.max_runs_per_minute && 'maxRunsPerMinute',
    ].filter((change): change is string => change !== false);
    if (changed.length > 0) {
      ctx.emit(createEvent('automation.updated', { automationId: id, organizationId: ctx.organizationId, changes: changed }, { organizationId: ctx.organizationId }));
    }
    return { ...toAutomationView(row), ...(hook ? { secret: hook.secret } : {}) };
  },
});

const rotateAutomationSecret = (rowAccess: RowAccessRoles) => defineProcedure({
  name: 'automations.rotateSecret',
  summary: "Replaces an http automation's hook secret; the new one is shown once and the old one stops working at once",
  scope: 'organization',
  permission: MANAGE_AUTOMATIONS,
  input: AutomationByIdInput,
  output: AutomationWithSecretSchema,
  async handler(ctx, input) {
    const current = await requireAutomation(ctx.em, ctx.organizationId, input.id, { forUpdate: true });
    if (current.trigger_type !== 'http') throw validationFailed([{ field: 'id', code: 'invalid_option', message: 'only an http automation has a hook secret' }]);
    await assertMayActAsCurrentOwner(ctx.em, rowAccess, ctx.principal, ctx.organizationId, current.owner_id, 're-key');
    const hook = generateHookSecret();
    const [row] = await ctx.em.execute<AutomationRow[]>(
      `UPDATE automations SET hook_secret_hash = ?, hook_secret_prefix = ?, updated_at = now() WHERE id = ? RETURNING ${AUTOMATION_COLUMNS}`,
      [hook.hash, hook.prefix, input.id],
    );
    ctx.emit(
      createEvent('automation.updated', { automationId: input.id, organizationId: ctx.organizationId, changes: ['secret'] }, { organizationId: ctx.organizationId }),
    );
    return { ...toAutomationView(row), secret: hook.secret };
  },
});

export const deleteAutomation = defineProcedure({
  name: 'automations.delete',
  summary: 'Deletes an automation and its run log; queued runs are dropped',
  scope: 'organization',
  permission: MANAGE_AUTOMATIONS,
  input: AutomationByIdInput,
  output: DeletedAutomationSchema,
  async handler(ctx, input) {
    await requireAutomation(ctx.em, ctx.organizationId, input.id, { forUpdate: true });
    await ctx.em.execute('DELETE FROM automations WHERE id = ?', [input.id]);
    ctx.emit(createEvent('automation.deleted', { automationId: input.id, organizationId: ctx.organizationId }, { organizationId: ctx.organizationId }));
    return { id: input.id, deleted: true as const };
  },
});

const runAutomation = (rowAccess: RowAccessRoles, jobs: JobQueue) => defineProcedure({
  name: 'automations.run',
  summary: 'Queues a run now, whatever the trigger; `input` is what {{input.x}} reads',
  scope: 'organization',
  permission: MANAGE_AUTOMATIONS,
  input: AutomationsRunInput,
  output: QueuedRunSchema,
  async handler(ctx: Context, input) {
    assertStorableJson(input.input, 'input');
    const automation = await requireAutomation(ctx.em, ctx.organizationId, input.id);
    if (!automation.enabled) throw conflict('The automation is disabled');
    await assertMayActAsCurrentOwner(ctx.em, rowAccess, ctx.principal, ctx.organizationId, automation.owner_id, 'run');
    const [runId] = await enqueueRuns(jobs, ctx.em, [
      { automationId: automation.id, organizationId: ctx.organizationId, trigger: 'manual', input: input.input ?? {}, triggeredBy: ctx.principal.userId },
    ]);
    // The automation was deleted meanwhile.
    if (!runId) throw notFound('Automation');
    return { runId };
  },
});

export function createAutomationDefinitionProcedures(deps: DefinitionDeps) {
  const rowAccess = deps.rowAccessRoles;
  return [
    listAutomations,
    getAutomation,
    createAutomation(deps),
    updateAutomation(deps),
    rotateAutomationSecret(rowAccess),
    deleteAutomation,
    runAutomation(rowAccess, deps.jobs),
  ];
}
