import { Type, type Static } from '@sinclair/typebox';

/** A user as `users.*` answer it. */
export const UserViewSchema = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('HUMAN'), Type.Literal('SERVICE')]),
  email: Type.String(),
  displayName: Type.String(),
  disabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  deletionScheduledFor: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type UserView = Static<typeof UserViewSchema>;
