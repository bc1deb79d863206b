import { Type } from '@sinclair/typebox';

/**
 * The input schemas of the `users.*` procedures. Their static types are the inputs of authz's
 * contracts (decision 155): this file imports nothing server-side.
 */

/** A user id in procedure inputs: a provider `sub` or a `svc_` id. */
export const USER_ID_SCHEMA = Type.String({ minLength: 1, maxLength: 255 });

/** Why the email is refused: DESIGN 3, humans are owned by the identity provider. */
export const EMAIL_BELONGS_TO_PROVIDER = 'is set by your identity provider and cannot be changed here; change it there and sign in again';

/** `users.updateProfile` */
export const UsersUpdateProfileInput = Type.Object(
  {
    displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    // Declared only to be refused with a clear answer (and shown as such in the schemas).
    email: Type.Optional(Type.Unsafe<never>({ readOnly: true, description: `Not accepted: the email address ${EMAIL_BELONGS_TO_PROVIDER}.` })),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** `users.disable`, `users.enable` */
export const TargetUserInput = Type.Object({ userId: USER_ID_SCHEMA }, { additionalProperties: false });

/** `users.requestDeletion`, `users.cancelDeletion` */
export const OwnAccountInput = Type.Object({}, { additionalProperties: false });
