import { DataModelsListInput, DataModelsGetInput, DataModelsCreateInput, DataModelsUpdateInput, DataModelsArchiveInput } from './model-inputs';
import { conflict, defineProcedure, newId } from '@mrp/platform';
import { TITLE_FIELD_KEY, validateFieldConfig } from '@mrp/field-validation';
import { scheduleIndexDrop } from '../indexes/index-scheduling';
import { DataField, DataModel } from './entities';
import { archivedModelOutput, findLiveModel, isLive, loadFields, modelOutput, visibleRecordCounts } from './model-store';
import { RECORD_COUNT_CAP } from './record-count-cap';
import { ArchivedModelSchema, ModelListSchema, ModelSchema, type ArchivedModelOutput, type ModelOutput } from './schemas';

export function createModelProcedures() {
  const list = defineProcedure({
    name: 'dataModels.list',
    summary: "Lists the organization's Data Models",
    scope: 'organization',
    permission: 'data-models.read',
    readOnly: true,
    input: DataModelsListInput,
    output: ModelListSchema,
    async handler(ctx, input) {
      const models = await ctx.em.find(DataModel, { organizationId: ctx.organizationId, archivedAt: null }, { orderBy: { key: 'asc' } });
      if (!input.recordCounts) return { items: models.map(modelOutput), nextCursor: null };
      const counts = ctx.principal.permissions.has('records.read')
        ? await visibleRecordCounts(ctx.em, ctx.organizationId, models.map((model) => model.id), ctx.principal.roleIds)
        : undefined;
      const items = models.map((model) => {
        const count = counts?.get(model.id);
        if (count === undefined) return { ...modelOutput(model), recordCount: null, recordCountCapped: false };
        return { ...modelOutput(model), recordCount: Math.min(count, RECORD_COUNT_CAP), recordCountCapped: count > RECORD_COUNT_CAP };
      });
      return { items, nextCursor: null };
    },
  });

  const get = defineProcedure({
    name: 'dataModels.get',
    summary: 'Gets one Data Model by key',
    scope: 'organization',
    permission: 'data-models.read',
    readOnly: true,
    input: DataModelsGetInput,
    output: ModelSchema,
    async handler(ctx, input): Promise<ModelOutput> {
      return modelOutput(await findLiveModel(ctx.em, ctx.organizationId, input.key));
    },
  });

  const create = defineProcedure({
    name: 'dataModels.create',
    summary: 'Creates a Data Model with its reserved, required TEXT field `title`',
    scope: 'organization',
    permission: 'data-models.manage',
    input: DataModelsCreateInput,
    output: ModelSchema,
    async handler(ctx, input): Promise<ModelOutput> {
      // Keys of archived models stay taken: old webhooks and integrations still name them.
      if (await ctx.em.findOne(DataModel, { organizationId: ctx.organizationId, key: input.key })) {
        throw conflict(`A data model with key "${input.key}" already exists`);
      }
      const model = ctx.em.create(DataModel, {
        id: newId(),
        organizationId: ctx.organizationId,
        key: input.key,
        name: input.name,
        description: input.description ?? null,
        archivedAt: null,
      });
      // No ORM relation links fields to models, so the model row must exist before its field's.
      await ctx.em.flush();
      const titleConfig = validateFieldConfig('TEXT', {});
      if (!titleConfig.ok) throw new Error('The default TEXT configuration is invalid');
      ctx.em.create(DataField, {
        id: newId(),
        modelId: model.id,
        key: TITLE_FIELD_KEY,
        name: 'Title',
        type: 'TEXT',
        config: titleConfig.value,
        required: true,
        position: 0,
        indexed: false,
        indexStatus: null,
        indexError: null,
        archivedAt: null,
      });
      await ctx.em.flush();
      return modelOutput(model);
    },
  });

  const update = defineProcedure({
    name: 'dataModels.update',
    summary: "Renames a Data Model or changes its description (the key is immutable)",
    scope: 'organization',
    permission: 'data-models.manage',
    input: DataModelsUpdateInput,
    output: ModelSchema,
    async handler(ctx, input): Promise<ModelOutput> {
      const model = await findLiveModel(ctx.em, ctx.organizationId, input.key);
      if (input.name !== undefined) model.name = input.name;
      if (input.description !== undefined) model.description = input.description;
      await ctx.em.flush();
      return modelOutput(model);
    },
  });

  const archive = defineProcedure({
    name: 'dataModels.archive',
    summary: 'Archives a Data Model: it and its records disappear from every read',
    scope: 'organization',
    permission: 'data-models.manage',
    input: DataModelsArchiveInput,
    output: ArchivedModelSchema,
    async handler(ctx, input): Promise<ArchivedModelOutput> {
      const model = await findLiveModel(ctx.em, ctx.organizationId, input.key);
      model.archivedAt = new Date();
      // Nothing reads an archived model's records, so their field indexes are dead weight.
      for (const field of await loadFields(ctx.em, model.id)) {
        if (isLive(field) && field.indexed) scheduleIndexDrop(ctx, field);
      }
      await ctx.em.flush();
      return archivedModelOutput(model);
    },
  });

  return [list, get, create, update, archive];
}
