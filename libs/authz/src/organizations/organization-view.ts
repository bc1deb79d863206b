import { Type, type Static } from '@sinclair/typebox';

/** An organization as `organizations.*` answer it. */
export const OrganizationViewSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  slug: Type.String(),
  createdBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type OrganizationView = Static<typeof OrganizationViewSchema>;

export const MemberViewSchema = Type.Object({
  userId: Type.String(),
  kind: Type.Union([Type.Literal('HUMAN'), Type.Literal('SERVICE')]),
  email: Type.String(),
  displayName: Type.String(),
  roleKeys: Type.Array(Type.String()),
  joinedAt: Type.String({ format: 'date-time' }),
  disabled: Type.Boolean(),
});
export type MemberView = Static<typeof MemberViewSchema>;

/** `organizations.get`: the active organization and its members. */
export const OrganizationWithMembersSchema = Type.Composite([OrganizationViewSchema, Type.Object({ members: Type.Array(MemberViewSchema) })]);
export type OrganizationWithMembers = Static<typeof OrganizationWithMembersSchema>;

/** `organizations.listInvites` items */
export const PendingInviteSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  roleKeys: Type.Array(Type.String()),
  invitedBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  expired: Type.Boolean(),
});
export type PendingInvite = Static<typeof PendingInviteSchema>;

/** `organizations.invite`: the invitation and its token, shown once. */
export const SentInviteSchema = Type.Object({
  invite: Type.Object({
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    roleKeys: Type.Array(Type.String()),
    expiresAt: Type.String({ format: 'date-time' }),
  }),
  token: Type.String(),
});
export type SentInvite = Static<typeof SentInviteSchema>;

/** `organizations.acceptInvite`: the organization joined and the roles the invite gave. */
export const AcceptedInviteSchema = Type.Object({ organization: OrganizationViewSchema, roleKeys: Type.Array(Type.String()) });

/** `organizations.listInvites` */
export const PendingInviteListSchema = Type.Object({ items: Type.Array(PendingInviteSchema) });

/** `organizations.cancelInvite` */
export const CanceledInviteSchema = Type.Object({ id: Type.String(), canceled: Type.Literal(true) });

/** `organizations.removeMember` */
export const RemovedMemberSchema = Type.Object({ userId: Type.String(), removed: Type.Literal(true) });
