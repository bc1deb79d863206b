import { DELIVERY_STATUSES, type DeliveryStatus } from '../api/webhook-types';
import { checkWindow } from './endpoint-form';

/** The delivery log's filters as the form holds them; '' means "any". */
export interface DeliveryFilterValues {
  endpointId: string;
  status: DeliveryStatus | '';
  eventType: string;
  /** `datetime-local` values in the reader's zone. */
  since: string;
  until: string;
}

export const NO_DELIVERY_FILTERS: DeliveryFilterValues = { endpointId: '', status: '', eventType: '', since: '', until: '' };

/** The input of `webhooks.deliveries.list`, without the cursor. */
export interface DeliveryListInput {
  endpointId?: string;
  status?: DeliveryStatus;
  eventType?: string;
  since?: string;
  until?: string;
  limit: number;
}

export const DELIVERY_PAGE_SIZE = 25;

export function checkDeliveryFilters(values: DeliveryFilterValues): { errors: Record<string, string>; input?: DeliveryListInput } {
  const window = checkWindow(values.since, values.until);
  if (Object.keys(window.errors).length > 0) return { errors: window.errors };
  return {
    errors: {},
    input: {
      ...(values.endpointId ? { endpointId: values.endpointId } : {}),
      ...(values.status ? { status: values.status } : {}),
      ...(values.eventType.trim() ? { eventType: values.eventType.trim() } : {}),
      ...(window.since ? { since: window.since } : {}),
      ...(window.until ? { until: window.until } : {}),
      limit: DELIVERY_PAGE_SIZE,
    },
  };
}

/** The filters in the page's address (`?endpoint=…&status=…`), so a filtered log can be linked to and survives a reload. */
export function filtersFromSearch(search: string): DeliveryFilterValues {
  const params = new URLSearchParams(search);
  const status = params.get('status');
  return {
    endpointId: params.get('endpoint') ?? '',
    status: DELIVERY_STATUSES.find((known) => known === status) ?? '',
    eventType: params.get('eventType') ?? '',
    since: params.get('since') ?? '',
    until: params.get('until') ?? '',
  };
}

export function filtersToSearch(values: DeliveryFilterValues): string {
  const params = new URLSearchParams();
  if (values.endpointId) params.set('endpoint', values.endpointId);
  if (values.status) params.set('status', values.status);
  if (values.eventType.trim()) params.set('eventType', values.eventType.trim());
  if (values.since) params.set('since', values.since);
  if (values.until) params.set('until', values.until);
  const text = params.toString();
  return text ? `?${text}` : '';
}
