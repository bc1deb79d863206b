/** The shapes of the organization procedures' answers the console reads (restated from their output schemas). */

/** `organizations.get` members */
export interface Member {
  userId: string;
  kind: 'HUMAN' | 'SERVICE';
  email: string;
  displayName: string;
  roleKeys: string[];
  joinedAt: string;
  disabled: boolean;
}

/** `organizations.get` */
export interface OrganizationWithMembers {
  id: string;
  name: string;
  slug: string;
  members: Member[];
}

/** `organizations.listInvites` items */
export interface PendingInvite {
  id: string;
  email: string;
  roleKeys: string[];
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
  expired: boolean;
}

/** `organizations.invite`: the invitation and its token, shown once. */
export interface SentInvite {
  invite: { id: string; email: string; roleKeys: string[]; expiresAt: string };
  token: string;
}

/** `notifications.list` items */
export interface InboxNotification {
  id: string;
  kind: string;
  title: string;
  body: string | null;
  data: Record<string, unknown>;
  createdAt: string;
  readAt: string | null;
}

/** `notifications.list` */
export interface NotificationPage {
  items: InboxNotification[];
  nextCursor: string | null;
  unreadCount: number;
}
