import { Type } from '@sinclair/typebox';
import { ROLE_KEY_PATTERN } from '../rbac/rbac-inputs';
import { USER_ID_SCHEMA } from '../users/user-inputs';
import { MAX_SLUG_LENGTH, SLUG_PATTERN } from './slug';

/**
 * The input schemas of the `organizations.*` procedures. Their static types are the inputs of
 * authz's contracts (decision 155): this file imports nothing server-side.
 */

const NAME = Type.String({ minLength: 1, maxLength: 200 });
const SLUG = Type.String({ pattern: SLUG_PATTERN, maxLength: MAX_SLUG_LENGTH });

/** `organizations.create` */
export const OrganizationsCreateInput = Type.Object({ name: NAME, slug: Type.Optional(SLUG) }, { additionalProperties: false });

/** `organizations.get` */
export const OrganizationsGetInput = Type.Object({}, { additionalProperties: false });

/** `organizations.update` */
export const OrganizationsUpdateInput = Type.Object(
  { name: Type.Optional(NAME), slug: Type.Optional(SLUG) },
  { additionalProperties: false, minProperties: 1 },
);

/** `organizations.invite` */
export const OrganizationsInviteInput = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    roleKeys: Type.Optional(Type.Array(Type.String({ pattern: ROLE_KEY_PATTERN }), { minItems: 1, maxItems: 20, uniqueItems: true })),
  },
  { additionalProperties: false },
);

/** `organizations.acceptInvite` */
export const OrganizationsAcceptInviteInput = Type.Object({ token: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });

/** `organizations.listInvites` */
export const OrganizationsListInvitesInput = Type.Object({}, { additionalProperties: false });

/** `organizations.cancelInvite` */
export const OrganizationsCancelInviteInput = Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

/** `organizations.removeMember` */
export const OrganizationsRemoveMemberInput = Type.Object({ userId: USER_ID_SCHEMA }, { additionalProperties: false });
