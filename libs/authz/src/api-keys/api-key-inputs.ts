import { Type } from '@sinclair/typebox';

/**
 * The input schemas of the `apiKeys.*` procedures (and what `serviceAccounts.keys.create` shares
 * with them). Their static types are the inputs of authz's contracts (decision 155): this file
 * imports nothing server-side.
 */

/** Input properties shared by every door that creates a key (own keys, service-account keys). */
export const apiKeyCreateProperties = {
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'A label to tell keys apart' }),
  fullAccess: Type.Boolean({ description: "true: all of the owner's permissions; false: only `permissions`" }),
  permissions: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      maxItems: 100,
      uniqueItems: true,
      description: 'The allowlist of a limited key; required and non-empty when fullAccess is false',
    }),
  ),
  expiresAt: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the key stops working' }),
  ),
};

/** `apiKeys.list` */
export const ApiKeysListInput = Type.Object({}, { additionalProperties: false });

/** `apiKeys.create` */
export const ApiKeysCreateInput = Type.Object(apiKeyCreateProperties, { additionalProperties: false });

/** `apiKeys.revoke` */
export const ApiKeysRevokeInput = Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
