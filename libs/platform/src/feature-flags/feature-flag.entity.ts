import { defineEntity, p } from '@mikro-orm/core';

export const FeatureFlag = defineEntity({
  name: 'FeatureFlag',
  tableName: 'feature_flags',
  properties: {
    key: p.string().primary(),
    enabled: p.boolean(),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    updatedBy: p.string().nullable(),
  },
});
