import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { AUTOMATION_PAGES } from '../automations/pages';
import { ORGANIZATION_PAGES } from '../organization/pages';
import { VIEW_PAGES } from '../views/pages';
import { WEBHOOK_PAGES } from '../webhooks/pages';

export interface PageProps {
  /** The path's parameters, e.g. `{ key: 'contacts' }` for `/models/:key`. */
  params: Record<string, string>;
}

export interface PageDefinition {
  /** A path pattern; `:name` segments become `params.name`. */
  path: string;
  title: string;
  component: LazyExoticComponent<ComponentType<PageProps>>;
  /** Listed in the navigation under this label when given. */
  nav?: string;
  /**
   * Shown (and listed) only when the active organization grants `permission` and the feature
   * `flag` is on (its procedures answer as unknown while it is off).
   */
  requires?: { permission?: string; flag?: string };
}

/**
 * Every page of the console, one file each under pages/, loaded when first visited so the first
 * page stays small. A new page is one entry here; the navigation, titles and gating follow.
 */
export const PAGES: PageDefinition[] = [
  {
    path: '/api-keys',
    title: 'API keys',
    nav: 'API keys',
    component: lazy(() => import('../pages/ApiKeysPage')),
    requires: { permission: 'api-keys.manage' },
  },
  {
    path: '/service-accounts',
    title: 'Service accounts',
    nav: 'Service accounts',
    component: lazy(() => import('../pages/ServiceAccountsPage')),
    requires: { permission: 'api-keys.manage-service-accounts', flag: 'public-api.service-accounts' },
  },
  {
    path: '/service-accounts/:id',
    title: 'Service account',
    component: lazy(() => import('../pages/ServiceAccountPage')),
    requires: { permission: 'api-keys.manage-service-accounts', flag: 'public-api.service-accounts' },
  },
  {
    path: '/models',
    title: 'Data models',
    nav: 'Data models',
    component: lazy(() => import('../pages/ModelsPage')),
    requires: { permission: 'data-models.read' },
  },
  {
    path: '/models/:key',
    title: 'Data model',
    component: lazy(() => import('../pages/ModelPage')),
    requires: { permission: 'data-models.read' },
  },
  {
    path: '/models/:key/records',
    title: 'Records',
    component: lazy(() => import('../pages/RecordsPage')),
    requires: { permission: 'records.read' },
  },
  {
    path: '/models/:key/trash',
    title: 'Trash',
    component: lazy(() => import('../pages/TrashPage')),
    requires: { permission: 'records.delete' },
  },
  ...VIEW_PAGES,
  ...WEBHOOK_PAGES,
  ...AUTOMATION_PAGES,
  ...ORGANIZATION_PAGES,
];

/** Where `/` and signing in lead: the data, when the person may read it (else their first page). */
export const HOME_PATH = '/models';
