import { Type, type Static } from '@sinclair/typebox';

export const ServiceAccountViewSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    displayName: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    /** Keys of the roles it holds in the active organization, sorted. */
    roleKeys: Type.Array(Type.String()),
    status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
    disabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    createdBy: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export type ServiceAccountView = Static<typeof ServiceAccountViewSchema>;

export const ServiceAccountListSchema = Type.Object(
  { items: Type.Array(ServiceAccountViewSchema) },
  { additionalProperties: false },
);

/** `serviceAccounts.delete` */
export const DeletedServiceAccountSchema = Type.Object({ id: Type.String(), deleted: Type.Literal(true), revokedKeys: Type.Integer() }, { additionalProperties: false });
