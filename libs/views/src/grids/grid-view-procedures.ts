import {
  conflict,
  defineProcedure,
  forbidden,
  isDomainError,
  newId,
  notFound,
  toIso,
  validationFailed,
  type ProcedureContext,
} from '@mrp/platform';
import { ViewByIdInput } from '../view-input-parts';
import { DeletedViewSchema } from '../view-schema-parts';
import { GridsCreateInput, GridsListInput, GridsUpdateInput } from './grid-view-inputs';
import type { ModelCall } from '../model-calls';
import { GridViewListSchema, GridViewSchema, MAX_STATE_LENGTH, type GridView, type GridViewState } from './grid-view-schemas';

const SHARING = 'data-models.manage';
/** Views listed in one answer, unpaged: a person's own views of a model, and the model's shared ones, each at most this many. */
export const MAX_VIEWS_PER_LIST = 100;

interface GridViewRow {
  id: string;
  model_key: string;
  name: string;
  state: GridViewState;
  shared: boolean;
  created_by: string;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = 'id, model_key, name, state, shared, created_by, created_at, updated_at';

const gridView = (row: GridViewRow): GridView => ({
  id: row.id,
  modelKey: row.model_key,
  name: row.name,
  state: row.state,
  shared: row.shared,
  createdBy: row.created_by,
  createdAt: toIso(row.created_at),
  updatedAt: toIso(row.updated_at),
});

type OrgContext = ProcedureContext<'organization'>;

/** A view the caller may see: a shared one, or their own; another's personal view does not exist for them. */
async function requireVisibleView(ctx: OrgContext, id: string): Promise<GridViewRow> {
  const [row] = await ctx.em.execute<GridViewRow[]>(
    `SELECT ${COLUMNS} FROM grid_views WHERE id = ? AND organization_id = ? AND (shared OR created_by = ?) FOR UPDATE`,
    [id, ctx.organizationId, ctx.principal.userId],
  );
  if (!row) throw notFound('Grid view');
  return row;
}

/**
 * Another view of this kind (the caller's own, or shared) still fits in the list's one answer.
 * Two creates at once may both pass at 99: the cap bounds the list, it is not a count to the unit.
 */
async function requireRoom(ctx: OrgContext, modelKey: string, shared: boolean): Promise<void> {
  const [{ count }] = (await ctx.em.execute<Array<{ count: string }>>(
    `SELECT count(*) AS count FROM grid_views WHERE organization_id = ? AND model_key = ? AND shared = ? AND (shared OR created_by = ?)`,
    [ctx.organizationId, modelKey, shared, ctx.principal.userId],
  )) as [{ count: string }];
  if (Number(count) >= MAX_VIEWS_PER_LIST) {
    throw conflict(`A model has at most ${MAX_VIEWS_PER_LIST} ${shared ? 'shared views' : 'views of your own'}; delete one first`);
  }
}

/** A shared view belongs to the organization: changing it takes the permission that shares one. */
function requireMayChange(ctx: OrgContext, row: GridViewRow): void {
  if (row.shared && !ctx.hasPermission(SHARING)) throw forbidden(`Changing a shared view needs ${SHARING}`);
}

export function createGridViewProcedures(call: ModelCall) {
  /**
   * A state is saved only when the model's records list accepts its search, filter and sort, so
   * a view never names a field the model lacks or an operator its type refuses; the list's own
   * refusal is answered, its paths under `state`.
   */
  async function checkState(ctx: OrgContext, modelKey: string, state: GridViewState): Promise<void> {
    if (JSON.stringify(state).length > MAX_STATE_LENGTH) {
      throw validationFailed([{ field: 'state', code: 'too_long', message: `A view's state takes at most ${MAX_STATE_LENGTH} characters of JSON` }]);
    }
    try {
      await call(ctx, 'records.list', {
        model: modelKey,
        sort: state.sort,
        limit: 1,
        fields: 'title',
        ...(state.q ? { q: state.q } : {}),
        ...(state.filter ? { filter: state.filter } : {}),
      });
    } catch (error) {
      if (isDomainError(error) && error.code === 'validation_failed' && error.details) {
        throw validationFailed(error.details.map((detail) => ({ ...detail, field: `state.${detail.field}` })));
      }
      // The list refuses a sort it cannot apply as a bad request, with the reason in its message.
      if (isDomainError(error) && error.code === 'bad_request') throw validationFailed([{ field: 'state.sort', code: 'invalid_option', message: error.message }]);
      throw error;
    }
  }

  const list = defineProcedure({
    name: 'views.grids.list',
    summary: "Lists a model's saved grid views the caller sees: their own and the shared ones",
    scope: 'organization',
    permission: 'records.read',
    readOnly: true,
    input: GridsListInput,
    output: GridViewListSchema,
    async handler(ctx, input) {
      const rows = await ctx.em.execute<GridViewRow[]>(
        `SELECT ${COLUMNS} FROM grid_views
          WHERE organization_id = ? AND model_key = ? AND (shared OR created_by = ?)
          ORDER BY lower(name), name, id`,
        [ctx.organizationId, input.modelKey, ctx.principal.userId],
      );
      return { items: rows.map(gridView), nextCursor: null };
    },
  });

  const create = defineProcedure({
    name: 'views.grids.create',
    summary: "Saves a view of a model's records grid, personal or shared with the organization",
    scope: 'organization',
    permission: 'records.read',
    inputPermissions: [{ permission: SHARING, when: 'shared=true', appliesTo: (input) => input.shared === true }],
    input: GridsCreateInput,
    output: GridViewSchema,
    async handler(ctx, input) {
      await checkState(ctx, input.modelKey, input.state);
      await requireRoom(ctx, input.modelKey, input.shared === true);
      const [row] = await ctx.em.execute<GridViewRow[]>(
        `INSERT INTO grid_views (id, organization_id, model_key, name, state, shared, created_by)
         VALUES (?, ?, ?, ?, ?::jsonb, ?, ?) RETURNING ${COLUMNS}`,
        [newId(), ctx.organizationId, input.modelKey, input.name, JSON.stringify(input.state), input.shared === true, ctx.principal.userId],
      );
      return gridView(row as GridViewRow);
    },
  });

  const update = defineProcedure({
    name: 'views.grids.update',
    summary: 'Renames a saved grid view, replaces its state, or shares it (or takes it back as the caller’s own)',
    scope: 'organization',
    permission: 'records.read',
    inputPermissions: [{ permission: SHARING, when: 'shared is given', appliesTo: (input) => input.shared !== undefined }],
    input: GridsUpdateInput,
    output: GridViewSchema,
    async handler(ctx, input) {
      const current = await requireVisibleView(ctx, input.id);
      requireMayChange(ctx, current);
      if (input.state) await checkState(ctx, current.model_key, input.state);
      const shared = input.shared ?? current.shared;
      if (shared !== current.shared) await requireRoom(ctx, current.model_key, shared);
      // A view becoming personal becomes the caller's; one staying as it was keeps its owner.
      const owner = shared === current.shared ? current.created_by : ctx.principal.userId;
      const [row] = await ctx.em.execute<GridViewRow[]>(
        `UPDATE grid_views SET name = ?, state = ?::jsonb, shared = ?, created_by = ?, updated_at = now() WHERE id = ? RETURNING ${COLUMNS}`,
        [input.name ?? current.name, JSON.stringify(input.state ?? current.state), shared, owner, current.id],
      );
      return gridView(row as GridViewRow);
    },
  });

  const remove = defineProcedure({
    name: 'views.grids.delete',
    summary: 'Deletes a saved grid view (a shared one needs data-models.manage); the records stay',
    scope: 'organization',
    permission: 'records.read',
    input: ViewByIdInput,
    output: DeletedViewSchema,
    async handler(ctx, input) {
      const current = await requireVisibleView(ctx, input.id);
      requireMayChange(ctx, current);
      await ctx.em.execute('DELETE FROM grid_views WHERE id = ?', [current.id]);
      return { id: current.id, deleted: true as const };
    },
  });

  return [list, create, update, remove];
}
