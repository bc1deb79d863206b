import type { NotificationView } from '@mrp/notifications/contracts';
import type { MemberView } from '@mrp/authz/contracts';

/** The answers of the organization procedures (authz) and of the inbox (notifications) the console reads: their own output types. */

export type { OrganizationWithMembers, PendingInvite, SentInvite } from '@mrp/authz/contracts';
export type { NotificationPage } from '@mrp/notifications/contracts';

/** `organizations.get` members */
export type Member = MemberView;

/** `notifications.list` items */
export type InboxNotification = NotificationView;
