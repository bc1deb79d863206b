import { EVENT_TYPES } from '../../catalog/event-catalog';
import { RECORD_EVENT_ALIAS } from '../../catalog/create-event';

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);
const PREFIX = /^[a-z][a-z0-9-]*(\.[a-z0-9_-]+)*\.\*$/;

/**
 * Why a subscription cannot match anything, or null when it is fine: `*`, a prefix (`data-models.*`,
 * `data-models.invoice.*`), a type of the catalog, or a per-model record type. An exact name that
 * is none of these is a typo that would silently never fire, so it is refused.
 */
export function subscriptionProblem(pattern: string): string | null {
  if (pattern === '*' || KNOWN_TYPES.has(pattern) || RECORD_EVENT_ALIAS.test(pattern)) return null;
  if (pattern.endsWith('.*')) return PREFIX.test(pattern) ? null : 'is not a valid prefix (e.g. data-models.*)';
  return 'is not an event type (see the event catalog), a prefix ending in .* or *';
}
