import { lazy } from 'react';
import type { PageDefinition } from '../app/pages';

const requires = { permission: 'webhooks.manage' };

/** The webhook pages: endpoints, the delivery log, one delivery. */
export const WEBHOOK_PAGES: PageDefinition[] = [
  { path: '/webhooks', title: 'Webhooks', nav: 'Webhooks', component: lazy(() => import('../pages/WebhooksPage')), requires },
  { path: '/webhooks/deliveries', title: 'Delivery log', component: lazy(() => import('../pages/WebhookDeliveriesPage')), requires },
  { path: '/webhooks/deliveries/:id', title: 'Webhook delivery', component: lazy(() => import('../pages/WebhookDeliveryPage')), requires },
];
