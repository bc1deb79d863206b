import { defineEntity, p } from '@mikro-orm/core';

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary(),
    /** The one organization the key acts in: the one active when it was created. */
    organizationId: p.uuid(),
    /** The principal the key acts as: a human user or a service account. */
    ownerUserId: p.text(),
    name: p.text(),
    /** SHA-256 hex of the token; the token itself is never stored. */
    tokenHash: p.text().unique(),
    prefix: p.text(),
    fullAccess: p.boolean(),
    /** The allowlist (ceiling) of a limited key; empty for a full-access key. */
    permissions: p.array(),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    createdBy: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
