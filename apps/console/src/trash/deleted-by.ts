import type { Member } from '../organization/types';

/** A member as `organizations.get` lists them (the part the trash reads). */
export type MemberName = Pick<Member, 'userId' | 'email' | 'displayName'>;

/**
 * Who deleted a record, in words: the member's display name, else their email; someone who left
 * the organization by their id; "Unknown" for a record deleted before deleters were kept.
 */
export function deletedByName(userId: string | null, members: ReadonlyMap<string, MemberName>): string {
  if (userId === null) return 'Unknown';
  const member = members.get(userId);
  if (!member) return `Former member ${userId}`;
  return member.displayName.trim() || member.email;
}

export function membersById(members: readonly MemberName[] | undefined): Map<string, MemberName> {
  return new Map((members ?? []).map((member) => [member.userId, member]));
}
