import { lazy } from 'react';
import type { PageDefinition } from '../app/pages';

/** The organization's people and roles, and the signed-in person's own account and inbox. */
export const ORGANIZATION_PAGES: PageDefinition[] = [
  { path: '/members', title: 'Members', nav: 'Members', component: lazy(() => import('../pages/MembersPage')) },
  { path: '/roles', title: 'Roles', nav: 'Roles', component: lazy(() => import('../pages/RolesPage')) },
  { path: '/account', title: 'Your account', component: lazy(() => import('../pages/AccountPage')) },
  { path: '/inbox', title: 'Notifications', component: lazy(() => import('../pages/InboxPage')) },
];
