import { toIso } from '@mrp/platform';
import type { EndpointView, Ordering, Signing } from './endpoint-view';

export interface EndpointRow {
  id: string;
  organization_id: string | null;
  url: string;
  description: string;
  subscriptions: string[];
  signing: Signing;
  ordering: Ordering;
  principal_id: string | null;
  state: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: Date | string | null;
  consecutive_failures: number;
  secret_ciphertext: string | null;
  previous_secret_expires_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export const ENDPOINT_COLUMNS = `id, organization_id, url, description, subscriptions, signing, ordering, principal_id, state, disabled_reason, disabled_at,
  consecutive_failures, secret_ciphertext, previous_secret_expires_at, created_at, updated_at`;

export function toEndpointView(row: EndpointRow, now: Date = new Date()): EndpointView {
  const previousExpires = row.previous_secret_expires_at === null ? null : new Date(row.previous_secret_expires_at);
  return {
    id: row.id,
    organizationId: row.organization_id,
    url: row.url,
    description: row.description,
    subscriptions: row.subscriptions,
    signing: row.signing,
    ordering: row.ordering,
    principalId: row.principal_id,
    state: row.state,
    disabledReason: row.disabled_reason,
    disabledAt: toIso(row.disabled_at),
    consecutiveFailures: row.consecutive_failures,
    signingSecretStored: row.secret_ciphertext !== null,
    previousSecretExpiresAt: previousExpires !== null && previousExpires > now ? previousExpires.toISOString() : null,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}
