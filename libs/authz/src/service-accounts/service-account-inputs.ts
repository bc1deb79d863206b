import { Type } from '@sinclair/typebox';
import { apiKeyCreateProperties } from '../api-keys/api-key-inputs';

/**
 * The input schemas of the `serviceAccounts.*` procedures (`serviceAccounts.keys.*` included).
 * Their static types are the inputs of authz's contracts (decision 155): this file imports
 * nothing server-side.
 */

export const SERVICE_ACCOUNT_ID_PATTERN = '^svc_[0-9a-f]{32}$';

const serviceAccountId = Type.String({ pattern: SERVICE_ACCOUNT_ID_PATTERN, description: 'svc_… id' });
const displayName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });
const description = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]);

/** `serviceAccounts.list` */
export const ServiceAccountsListInput = Type.Object({}, { additionalProperties: false });

/** `serviceAccounts.create` */
export const ServiceAccountsCreateInput = Type.Object(
  {
    displayName,
    description: Type.Optional(description),
    roleKeys: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, uniqueItems: true })),
  },
  { additionalProperties: false },
);

/** `serviceAccounts.update` */
export const ServiceAccountsUpdateInput = Type.Object(
  { id: serviceAccountId, displayName: Type.Optional(displayName), description: Type.Optional(description) },
  { additionalProperties: false },
);

/** `serviceAccounts.disable`, `serviceAccounts.enable`, `serviceAccounts.delete` */
export const ServiceAccountByIdInput = Type.Object({ id: serviceAccountId }, { additionalProperties: false });

/** `serviceAccounts.keys.list` */
export const ServiceAccountKeysListInput = Type.Object({ serviceAccountId }, { additionalProperties: false });

/** `serviceAccounts.keys.create` */
export const ServiceAccountKeysCreateInput = Type.Object({ serviceAccountId, ...apiKeyCreateProperties }, { additionalProperties: false });

/** `serviceAccounts.keys.revoke` */
export const ServiceAccountKeysRevokeInput = Type.Object({ serviceAccountId, id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
