import { Type } from '@sinclair/typebox';

/**
 * The input and answer schemas of `featureFlags.list` and `featureFlags.enabled`, whose static
 * types are in authz's contracts (decision 155): this file imports nothing server-side.
 * `featureFlags.set`'s input names the platform's known flags and stays beside its procedure.
 */

/** `featureFlags.list`, `featureFlags.enabled` */
export const FeatureFlagsReadInput = Type.Object({}, { additionalProperties: false });

export const FlagStateSchema = Type.Object({
  key: Type.String(),
  enabled: Type.Boolean(),
  description: Type.String(),
  source: Type.Union([Type.Literal('stored'), Type.Literal('boot-default'), Type.Literal('built-in')]),
  updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

/** `featureFlags.list` */
export const FlagStateListSchema = Type.Object({ items: Type.Array(FlagStateSchema) });

/** `featureFlags.set` */
export const FlagFlipSchema = Type.Object({ key: Type.String(), enabled: Type.Boolean(), previous: Type.Boolean(), description: Type.String() });

/** `featureFlags.enabled`: the keys of the flags that are on. */
export const EnabledFlagsSchema = Type.Object({ items: Type.Array(Type.String()) });
