import { DataModelsFieldsListInput, DataModelsFieldsCreateInput, DataModelsFieldsUpdateInput, DataModelsFieldsArchiveInput } from './field-inputs';
import { conflict, defineProcedure, newId, notFound, validationFailed, type ProcedureContext } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { TITLE_FIELD_KEY, type FieldDefinition, type FieldType } from '@mrp/field-validation';
import { createIndexStatement, isIndexable } from '../indexes/field-index';
import { scheduleIndexBuild, scheduleIndexDrop } from '../indexes/index-scheduling';
import { DataField } from '../models/entities';
import { fieldOutput, isLive, liveDefinitions, loadLiveModel, toDefinition, type LoadedModel } from '../models/model-store';
import { FieldListSchema, FieldSchema, type FieldOutput } from '../models/schemas';
import { canonical } from '../records/record-data';
import { checkExistingValues, countEmptyValues, recomputeFormulas, rewriteValues, type ModelScope } from './existing-values';
import { assertFormulasHold, assertRelationTarget, refuse, resolveConfig, valueRules } from './field-rules';

type OrgContext = ProcedureContext<'organization'>;

function scopeOf(ctx: OrgContext, loaded: LoadedModel): ModelScope {
  return { organizationId: ctx.organizationId, modelId: loaded.model.id };
}

/**
 * One model-level event for a field change that rewrote stored values (a type change converting
 * them, formulas recomputed): no record event is emitted for those, so subscribers learn here that
 * records changed under them, and how many. Nothing rewritten, nothing said.
 */
function announceRewrite(ctx: OrgContext, modelKey: string, fieldKey: string, count: number): void {
  if (count === 0) return;
  ctx.emit(createEvent('data-models.field-values-rewritten', { modelKey, fieldKey, count }, { organizationId: ctx.organizationId }));
}

function requireLiveField(loaded: LoadedModel, key: string): DataField {
  const field = loaded.fields.find((candidate) => candidate.key === key && isLive(candidate));
  if (!field) throw notFound('Field');
  return field;
}

function assertIndexable(indexed: boolean, type: FieldType, config: Record<string, unknown>): void {
  if (indexed && !isIndexable({ type, config })) {
    refuse('indexed', 'invalid_option', `${type} fields cannot be indexed`);
  }
}

function assertNotRequiredFormula(type: FieldType, required: boolean): void {
  if (type === 'FORMULA' && required) refuse('required', 'invalid_option', 'FORMULA fields are computed and cannot be required');
}

async function assertNoEmptyValues(ctx: OrgContext, loaded: LoadedModel, key: string): Promise<void> {
  const empty = await countEmptyValues(ctx.em, scopeOf(ctx, loaded), key);
  if (empty > 0) refuse(key, 'required', `${empty} existing record(s) have no value for "${key}"; fill them before making it required`);
}

export function createFieldProcedures() {
  const list = defineProcedure({
    name: 'dataModels.fields.list',
    summary: "Lists a model's fields in position order",
    scope: 'organization',
    permission: 'data-models.read',
    readOnly: true,
    input: DataModelsFieldsListInput,
    output: FieldListSchema,
    async handler(ctx, input) {
      const loaded = await loadLiveModel(ctx.em, ctx.organizationId, input.model);
      return { items: loaded.fields.filter(isLive).map(fieldOutput), nextCursor: null };
    },
  });

  const create = defineProcedure({
    name: 'dataModels.fields.create',
    summary: 'Adds a field to a model',
    scope: 'organization',
    permission: 'data-models.manage',
    input: DataModelsFieldsCreateInput,
    output: FieldSchema,
    async handler(ctx, input): Promise<FieldOutput> {
      const loaded = await loadLiveModel(ctx.em, ctx.organizationId, input.model);
      // Archived keys stay taken: stored values and old integrations still use them.
      if (loaded.fields.some((field) => field.key === input.key)) {
        throw conflict(`Field "${input.key}" already exists in model "${input.model}"`);
      }
      const type = input.type as FieldType;
      const config = resolveConfig(type, input.config);
      const required = input.required ?? false;
      const indexed = input.indexed ?? false;
      assertNotRequiredFormula(type, required);
      assertIndexable(indexed, type, config);
      await assertRelationTarget(ctx.em, ctx.organizationId, type, config);
      const definition: FieldDefinition = { key: input.key, type, config, required };
      assertFormulasHold([...liveDefinitions(loaded.fields), definition]);
      if (required) await assertNoEmptyValues(ctx, loaded, input.key);

      const field = ctx.em.create(DataField, {
        id: newId(),
        modelId: loaded.model.id,
        key: input.key,
        name: input.name,
        type,
        config,
        required,
        position: input.position ?? Math.max(0, ...loaded.fields.map((existing) => existing.position + 1)),
        indexed,
        indexStatus: null,
        indexError: null,
        archivedAt: null,
      });
      if (indexed) scheduleIndexBuild(ctx, field);
      await ctx.em.flush();
      if (type === 'FORMULA') announceRewrite(ctx, loaded.model.key, field.key, await recomputeFormulas(ctx.em, scopeOf(ctx, loaded), [...loaded.fields, field]));
      return fieldOutput(field);
    },
  });

  const update = defineProcedure({
    name: 'dataModels.fields.update',
    summary: "Changes a field (the key is immutable; a type change needs every stored value to fit)",
    scope: 'organization',
    permission: 'data-models.manage',
    input: DataModelsFieldsUpdateInput,
    output: FieldSchema,
    async handler(ctx, input): Promise<FieldOutput> {
      const loaded = await loadLiveModel(ctx.em, ctx.organizationId, input.model);
      const field = requireLiveField(loaded, input.key);
      const isTitle = field.key === TITLE_FIELD_KEY;
      const type = (input.type ?? field.type) as FieldType;
      if (isTitle && type !== 'TEXT') refuse('type', 'read_only', 'The title field is always TEXT');
      if (isTitle && input.required === false) refuse('required', 'read_only', 'The title field is always required');

      const typeChanged = type !== field.type;
      // A new type starts from its defaults unless a config is given: the old type's settings rarely apply.
      const config = input.config !== undefined ? resolveConfig(type, input.config) : typeChanged ? resolveConfig(type, {}) : field.config;
      const configChanged = canonical(config) !== canonical(field.config);
      // Adding a reminder to a DATETIME field of a million records must not re-read them all.
      const valueRulesChanged = canonical(valueRules(config)) !== canonical(valueRules(field.config));
      const required = input.required ?? field.required;
      const indexed = input.indexed ?? field.indexed;
      assertNotRequiredFormula(type, required);
      assertIndexable(indexed, type, config);
      if (typeChanged || configChanged) await assertRelationTarget(ctx.em, ctx.organizationId, type, config);

      const definition: FieldDefinition = { key: field.key, type, config, required };
      const definitions = loaded.fields.filter(isLive).map((existing) => (existing.id === field.id ? definition : toDefinition(existing)));
      assertFormulasHold(definitions);

      const scope = scopeOf(ctx, loaded);
      let rewrites = new Map<string, unknown>();
      // FORMULA values are recomputed below, so what is stored now does not matter.
      if ((typeChanged || valueRulesChanged) && type !== 'FORMULA') {
        const check = await checkExistingValues(ctx.em, scope, definition);
        if (check.errors.length > 0) {
          throw validationFailed(check.errors, `Existing values of "${field.key}" do not fit the new definition`);
        }
        rewrites = check.rewrites;
      }
      if (required && !field.required) await assertNoEmptyValues(ctx, loaded, field.key);

      const wasFormula = field.type === 'FORMULA';
      const previousIndex = field.indexed ? createIndexStatement({ ...field }) : undefined;
      field.name = input.name ?? field.name;
      field.type = type;
      field.config = config;
      field.required = required;
      field.position = input.position ?? field.position;
      if (indexed) {
        const indexChanged = previousIndex !== createIndexStatement({ ...field });
        if (!field.indexed || indexChanged || field.indexStatus === 'failed') {
          field.indexed = true;
          scheduleIndexBuild(ctx, field);
        }
      } else if (field.indexed) {
        scheduleIndexDrop(ctx, field);
      }
      await ctx.em.flush();
      if (rewrites.size > 0) await rewriteValues(ctx.em, field.key, rewrites);
      const modelHasFormulas = loaded.fields.some((other) => isLive(other) && other.type === 'FORMULA');
      const valuesMayDiffer = wasFormula || type === 'FORMULA' || typeChanged || valueRulesChanged || rewrites.size > 0;
      const recomputed = modelHasFormulas && valuesMayDiffer ? await recomputeFormulas(ctx.em, scope, loaded.fields, rewrites) : 0;
      announceRewrite(ctx, loaded.model.key, field.key, rewrites.size + recomputed);
      return fieldOutput(field);
    },
  });

  const archive = defineProcedure({
    name: 'dataModels.fields.archive',
    summary: 'Archives a field: it disappears from reads, writes, filters and formulas; its key stays taken',
    scope: 'organization',
    permission: 'data-models.manage',
    input: DataModelsFieldsArchiveInput,
    output: FieldSchema,
    async handler(ctx, input): Promise<FieldOutput> {
      const loaded = await loadLiveModel(ctx.em, ctx.organizationId, input.model);
      const field = requireLiveField(loaded, input.key);
      if (field.key === TITLE_FIELD_KEY) refuse('key', 'read_only', 'The title field cannot be archived');
      assertFormulasHold(liveDefinitions(loaded.fields.filter((other) => other.id !== field.id)));
      field.archivedAt = new Date();
      if (field.indexed) scheduleIndexDrop(ctx, field);
      await ctx.em.flush();
      return fieldOutput(field);
    },
  });

  return [list, create, update, archive];
}
