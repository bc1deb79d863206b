import { lazy } from 'react';
import type { PageDefinition } from '../app/pages';

const requires = { permission: 'data-models.read' };

/** Kanban boards and calendars: views over a data model's records. */
export const VIEW_PAGES: PageDefinition[] = [
  { path: '/boards', title: 'Boards', nav: 'Boards', component: lazy(() => import('../pages/BoardsPage')), requires },
  { path: '/boards/:id', title: 'Board', component: lazy(() => import('../pages/BoardPage')), requires },
  { path: '/calendars', title: 'Calendars', nav: 'Calendars', component: lazy(() => import('../pages/CalendarsPage')), requires },
  { path: '/calendars/:id', title: 'Calendar', component: lazy(() => import('../pages/CalendarPage')), requires },
];
