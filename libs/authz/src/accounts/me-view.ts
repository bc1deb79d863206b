import { Type, type Static } from '@sinclair/typebox';

/** `me.get`: who the session is, its organizations, and its roles and permissions in the active one. */
export const MeSchema = Type.Object({
  user: Type.Object({
    id: Type.String(),
    kind: Type.Union([Type.Literal('HUMAN'), Type.Literal('SERVICE')]),
    email: Type.String(),
    displayName: Type.String(),
    isPlatformAdmin: Type.Boolean(),
    deletionScheduledFor: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
  organizations: Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String(), roleKeys: Type.Array(Type.String()) }),
  ),
  activeOrganization: Type.Union([
    Type.Object({ id: Type.String(), roleIds: Type.Array(Type.String()), permissions: Type.Array(Type.String()) }),
    Type.Null(),
  ]),
});
export type MeView = Static<typeof MeSchema>;

/** `me.identity` (and `GET /api/v1/me`) */
export const IdentitySchema = Type.Object(
  {
    principal: Type.Object({
      id: Type.String(),
      kind: Type.Union([Type.Literal('HUMAN'), Type.Literal('SERVICE')]),
      email: Type.String(),
      displayName: Type.String(),
    }),
    organization: Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String(), slug: Type.String() }),
    apiKey: Type.Union([
      Type.Object({
        id: Type.String({ format: 'uuid' }),
        name: Type.String(),
        prefix: Type.String(),
        fullAccess: Type.Boolean(),
        permissions: Type.Array(Type.String()),
        expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      }),
      Type.Null(),
    ]),
    permissions: Type.Array(Type.String(), { description: 'Effective permissions, sorted' }),
  },
  { $id: 'Identity', description: 'Who the credential acts as, in which organization, with which rights' },
);

export type Identity = Static<typeof IdentitySchema>;
