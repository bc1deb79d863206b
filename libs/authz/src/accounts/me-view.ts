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
