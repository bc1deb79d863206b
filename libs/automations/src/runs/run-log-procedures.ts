import { defineProcedure, notFound } from '@mrp/platform';
import { RunsGetInput, RunsListInput } from '../definitions/automation-inputs';
import { RunPageSchema, RunViewSchema } from '../definitions/automation-schemas';
import { MANAGE_AUTOMATIONS } from '../definitions/automation-procedures';
import { RUN_COLUMNS, toRunView, type RunRow } from './run-rows';

export const listRuns = defineProcedure({
  name: 'automations.runs.list',
  summary: "Runs of the organization's automations, newest first",
  scope: 'organization',
  permission: MANAGE_AUTOMATIONS,
  readOnly: true,
  input: RunsListInput,
  output: RunPageSchema,
  async handler(ctx, input) {
    const limit = input.limit ?? 25;
    // Run ids are UUIDv7: their order is the order they were queued in.
    const rows = await ctx.em.execute<RunRow[]>(
      `SELECT ${RUN_COLUMNS} FROM automation_runs
        WHERE organization_id = ? AND (?::uuid IS NULL OR automation_id = ?::uuid) AND (?::text IS NULL OR status = ?::text)
          AND (?::uuid IS NULL OR id < ?::uuid)
        ORDER BY id DESC LIMIT ?`,
      [
        ctx.organizationId,
        input.automationId ?? null,
        input.automationId ?? null,
        input.status ?? null,
        input.status ?? null,
        input.cursor ?? null,
        input.cursor ?? null,
        limit + 1,
      ],
    );
    const page = rows.slice(0, limit);
    return { items: page.map(toRunView), nextCursor: rows.length > limit ? page[page.length - 1].id : null };
  },
});

export const getRun = defineProcedure({
  name: 'automations.runs.get',
  summary: 'One run: its status, input and the result of each action',
  scope: 'organization',
  permission: MANAGE_AUTOMATIONS,
  readOnly: true,
  input: RunsGetInput,
  output: RunViewSchema,
  async handler(ctx, input) {
    const [row] = await ctx.em.execute<RunRow[]>(`SELECT ${RUN_COLUMNS} FROM automation_runs WHERE id = ? AND organization_id = ?`, [
      input.id,
      ctx.organizationId,
    ]);
    if (!row) throw notFound('Run');
    return toRunView(row);
  },
});

export const runLogProcedures = [listRuns, getRun];
