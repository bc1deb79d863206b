import { defineProcedure, newId, notFound, toIso, validationFailed, type ProcedureContext } from '@mrp/platform';
import { ViewByIdInput } from '../view-input-parts';
import { DeletedViewSchema } from '../view-schema-parts';
import { CalendarsCreateInput, CalendarsEventsInput, CalendarsListInput, CalendarsUpdateInput } from './calendar-inputs';
import { modelFields, requireFieldOfType, type ModelCall, type ModelField, type RecordPage } from '../model-calls';
import { CalendarEventPageSchema, CalendarListSchema, CalendarSchema, type CalendarView } from './calendar-schemas';

const DATE_TYPES = ['DATETIME', 'DATE'] as const;

interface CalendarRow {
  id: string;
  organization_id: string;
  name: string;
  model_key: string;
  start_field_key: string;
  end_field_key: string | null;
  created_by: string;
  created_at: Date | string;
  updated_at: Date | string;
}

const CALENDAR_COLUMNS = 'id, organization_id, name, model_key, start_field_key, end_field_key, created_by, created_at, updated_at';

const calendarView = (row: CalendarRow): CalendarView => ({
  id: row.id,
  name: row.name,
  modelKey: row.model_key,
  startFieldKey: row.start_field_key,
  endFieldKey: row.end_field_key,
  createdBy: row.created_by,
  createdAt: toIso(row.created_at),
  updatedAt: toIso(row.updated_at),
});

type OrgContext = ProcedureContext<'organization'>;

async function requireCalendar(ctx: OrgContext, id: string): Promise<CalendarRow> {
  const [row] = await ctx.em.execute<CalendarRow[]>(`SELECT ${CALENDAR_COLUMNS} FROM calendars WHERE id = ? AND organization_id = ?`, [id, ctx.organizationId]);
  if (!row) throw notFound('Calendar');
  return row;
}

/** A window bound for a field: a DATE field compares calendar days (the UTC day of the instant). */
const boundFor = (field: ModelField | undefined, instant: string) => (field?.type === 'DATE' ? new Date(instant).toISOString().slice(0, 10) : instant);

/**
 * The records a calendar shows between `from` and `to`: those starting in [from, to), or, with an
 * end field, those overlapping it (starting before `to` and ending at or after `from`; one without
 * an end counts as an instant). A filter tree and a sort on the start field, handed to records.list
 * as the caller: its keyset pages, row-level access and the start field's expression index apply.
 */
function windowFilter(start: ModelField, end: ModelField | undefined, from: string, to: string): object {
  const startsBefore = { field: start.key, op: start.type === 'DATE' ? 'lte' : 'lt', value: boundFor(start, to) };
  const startsInWindow = { and: [{ field: start.key, op: 'gte', value: boundFor(start, from) }, startsBefore] };
  if (!end) return startsInWindow;
  return {
    or: [
      { and: [startsBefore, { field: end.key, op: 'gte', value: boundFor(end, from) }] },
      { and: [{ field: end.key, op: 'isEmpty' }, ...startsInWindow.and] },
    ],
  };
}

export function createCalendarProcedures(call: ModelCall) {
  async function checkFields(ctx: OrgContext, modelKey: string, startFieldKey: string, endFieldKey: string | null) {
    const fields = await modelFields(call, ctx, modelKey);
    const start = requireFieldOfType(fields, startFieldKey, DATE_TYPES, 'startFieldKey');
    const end = endFieldKey === null ? undefined : requireFieldOfType(fields, endFieldKey, [start.type], 'endFieldKey');
    if (end && end.key === start.key) throw validationFailed([{ field: 'endFieldKey', code: 'invalid_option', message: 'The end field must differ from the start field' }]);
    return { start, end };
  }

  const list = defineProcedure({
    name: 'calendars.list',
    summary: "Lists the organization's calendars",
    scope: 'organization',
    permission: 'data-models.read',
    readOnly: true,
    input: CalendarsListInput,
    output: CalendarListSchema,
    async handler(ctx, input) {
      const rows = await ctx.em.execute<CalendarRow[]>(
        `SELECT ${CALENDAR_COLUMNS} FROM calendars WHERE organization_id = ? AND (?::text IS NULL OR model_key = ?) ORDER BY name, id`,
        [ctx.organizationId, input.modelKey ?? null, input.modelKey ?? null],
      );
      return { items: rows.map(calendarView), nextCursor: null };
    },
  });

  const get = defineProcedure({
    name: 'calendars.get',
    summary: 'Gets one calendar',
    scope: 'organization',
    permission: 'data-models.read',
    readOnly: true,
    input: ViewByIdInput,
    output: CalendarSchema,
    async handler(ctx, input) {
      return calendarView(await requireCalendar(ctx, input.id));
    },
  });

  const create = defineProcedure({
    name: 'calendars.create',
    summary: "Creates a calendar over a model: a DATETIME (or DATE) field where events start, optionally one where they end",
    scope: 'organization',
    permission: 'data-models.manage',
    input: CalendarsCreateInput,
    output: CalendarSchema,
    async handler(ctx, input) {
      await checkFields(ctx, input.modelKey, input.startFieldKey, input.endFieldKey ?? null);
      const [row] = await ctx.em.execute<CalendarRow[]>(
        `INSERT INTO calendars (id, organization_id, name, model_key, start_field_key, end_field_key, created_by)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${CALENDAR_COLUMNS}`,
        [newId(), ctx.organizationId, input.name, input.modelKey, input.startFieldKey, input.endFieldKey ?? null, ctx.principal.userId],
      );
      return calendarView(row);
    },
  });

  const update = defineProcedure({
    name: 'calendars.update',
    summary: 'Renames a calendar or changes its fields',
    scope: 'organization',
    permission: 'data-models.manage',
    input: CalendarsUpdateInput,
    output: CalendarSchema,
    async handler(ctx, input) {
      const current = await requireCalendar(ctx, input.id);
      const startFieldKey = input.startFieldKey ?? current.start_field_key;
      const endFieldKey = input.endFieldKey === undefined ? current.end_field_key : input.endFieldKey;
      if (input.startFieldKey !== undefined || input.endFieldKey !== undefined) await checkFields(ctx, current.model_key, startFieldKey, endFieldKey);
      const [row] = await ctx.em.execute<CalendarRow[]>(
        `UPDATE calendars SET name = ?, start_field_key = ?, end_field_key = ?, updated_at = now() WHERE id = ? RETURNING ${CALENDAR_COLUMNS}`,
        [input.name ?? current.name, startFieldKey, endFieldKey, current.id],
      );
      return calendarView(row);
    },
  });

  const remove = defineProcedure({
    name: 'calendars.delete',
    summary: "Deletes a calendar; the model's records stay",
    scope: 'organization',
    permission: 'data-models.manage',
    input: ViewByIdInput,
    output: DeletedViewSchema,
    async handler(ctx, input) {
      const deleted = await ctx.em.execute<Array<{ id: string }>>('DELETE FROM calendars WHERE id = ? AND organization_id = ? RETURNING id', [
        input.id,
        ctx.organizationId,
      ]);
      if (deleted.length === 0) throw notFound('Calendar');
      return { id: input.id, deleted: true as const };
    },
  });

  const events = defineProcedure({
    name: 'calendars.events',
    summary: "The calendar's records in a window [from, to), by start, in keyset pages",
    scope: 'organization',
    permission: 'data-models.read',
    readOnly: true,
    input: CalendarsEventsInput,
    output: CalendarEventPageSchema,
    async handler(ctx, input): Promise<RecordPage> {
      // The date-time format admits a leap second (23:59:60), which no Date can hold.
      for (const bound of ['from', 'to'] as const) {
        if (Number.isNaN(Date.parse(input[bound]))) throw validationFailed([{ field: bound, code: 'invalid_format', message: `\`${bound}\` is not an instant this API can use` }]);
      }
      if (Date.parse(input.to) <= Date.parse(input.from)) throw validationFailed([{ field: 'to', code: 'out_of_range', message: '`to` must be after `from`' }]);
      const calendar = await requireCalendar(ctx, input.id);
      const fields = await modelFields(call, ctx, calendar.model_key);
      const start = fields.find((field) => field.key === calendar.start_field_key);
      if (!start) throw validationFailed([{ field: 'id', code: 'not_found', message: `The calendar's start field "${calendar.start_field_key}" is gone` }]);
      const end = calendar.end_field_key === null ? undefined : fields.find((field) => field.key === calendar.end_field_key);
      return call(ctx, 'records.list', {
        model: calendar.model_key,
        filter: windowFilter(start, end, input.from, input.to),
        sort: start.key,
        limit: input.limit ?? 100,
        ...(input.cursor ? { cursor: input.cursor } : {}),
      });
    },
  });

  return [list, get, create, update, remove, events];
}
