import { Type } from '@sinclair/typebox';
import {
  FEATURE_FLAG_KEYS,
  KNOWN_FEATURE_FLAGS,
  defineProcedure,
  type FeatureFlagKey,
  type FeatureFlagStore,
} from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { EnabledFlagsSchema, FeatureFlagsReadInput, FlagFlipSchema, FlagStateListSchema } from './feature-flag-inputs';

export function createFeatureFlagProcedures(flags: FeatureFlagStore) {
  const list = defineProcedure({
    name: 'featureFlags.list',
    summary: 'Every feature flag with its value and where the value comes from',
    scope: 'platform-admin',
    permission: null,
    readOnly: true,
    input: FeatureFlagsReadInput,
    output: FlagStateListSchema,
    async handler() {
      return { items: await flags.list() };
    },
  });

  const set = defineProcedure({
    name: 'featureFlags.set',
    summary: 'Turn a feature flag on or off for the whole deployment',
    scope: 'platform-admin',
    permission: null,
    input: Type.Object(
      {
        key: Type.Unsafe<FeatureFlagKey>({ type: 'string', enum: [...FEATURE_FLAG_KEYS] }),
        enabled: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    output: FlagFlipSchema,
    async handler(ctx, input) {
      const { previous } = await flags.set(ctx.em, input.key, input.enabled, ctx.principal.userId);
      // set() drops this process's snapshot before commit; drop it again so no read in between sticks.
      ctx.afterCommit(async () => flags.invalidate());
      if (previous !== input.enabled) {
        ctx.emit(
          createEvent('feature-flag.flipped', {
            key: input.key,
            enabled: input.enabled,
            previous,
            flippedBy: ctx.principal.userId,
          }),
        );
      }
      return {
        key: input.key,
        enabled: input.enabled,
        previous,
        description: KNOWN_FEATURE_FLAGS[input.key].description,
      };
    },
  });

  // Anyone signed in may learn which features are on: the console shows only the pages it can
  // serve, without probing procedures that answer 404 while their flag is off.
  const enabled = defineProcedure({
    name: 'featureFlags.enabled',
    summary: 'The keys of the feature flags that are on',
    scope: 'user',
    permission: null,
    readOnly: true,
    input: FeatureFlagsReadInput,
    output: EnabledFlagsSchema,
    async handler() {
      const states = await Promise.all(FEATURE_FLAG_KEYS.map(async (key) => [key, await flags.isEnabled(key)] as const));
      return { items: states.filter(([, on]) => on).map(([key]) => key) };
    },
  });

  return [list, set, enabled];
}
