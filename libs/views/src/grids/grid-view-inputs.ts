import { Type } from '@sinclair/typebox';
import { IdInput, KeyInput, NameInput } from '../view-input-parts';
import { GridViewStateSchema } from './grid-view-schemas';

/**
 * The input schemas of the `views.grids.*` procedures. Their static types are the inputs of the
 * views lib's contracts (decision 155): this file imports nothing server-side.
 */

const SharedInput = Type.Boolean({ description: 'true shares the view with the organization (needs data-models.manage)' });

/** `views.grids.list` */
export const GridsListInput = Type.Object({ modelKey: KeyInput }, { additionalProperties: false });

/** `views.grids.create` */
export const GridsCreateInput = Type.Object(
  { modelKey: KeyInput, name: NameInput, state: GridViewStateSchema, shared: Type.Optional(SharedInput) },
  { additionalProperties: false },
);

/** `views.grids.update` */
export const GridsUpdateInput = Type.Object(
  { id: IdInput, name: Type.Optional(NameInput), state: Type.Optional(GridViewStateSchema), shared: Type.Optional(SharedInput) },
  { additionalProperties: false },
);
