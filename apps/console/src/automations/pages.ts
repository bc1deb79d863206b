import { lazy } from 'react';
import type { PageDefinition } from '../app/pages';

const requires = { permission: 'automations.manage' };

/** The automation pages: the list, the editor (new and existing), one automation with its runs. */
export const AUTOMATION_PAGES: PageDefinition[] = [
  { path: '/automations', title: 'Automations', nav: 'Automations', component: lazy(() => import('../pages/AutomationsPage')), requires },
  // Before /automations/:id, which would take "new" for an id.
  { path: '/automations/new', title: 'New automation', component: lazy(() => import('../pages/AutomationEditorPage')), requires },
  { path: '/automations/:id/edit', title: 'Edit automation', component: lazy(() => import('../pages/AutomationEditorPage')), requires },
  { path: '/automations/:id', title: 'Automation', component: lazy(() => import('../pages/AutomationPage')), requires },
];
