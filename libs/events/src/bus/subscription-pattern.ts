import type { EventEnvelope } from '@mrp/platform';

/**
 * A subscription names an exact type (`rbac.role-created`), a prefix (`data-models.*`) or
 * everything (`*`). An event matches through its type or any of its subscription aliases.
 */
export function patternMatchesType(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

export function eventMatches(pattern: string, event: Pick<EventEnvelope, 'type' | 'subscriptionAliases'>): boolean {
  return [event.type, ...(event.subscriptionAliases ?? [])].some((type) => patternMatchesType(pattern, type));
}

export const SUBSCRIPTION_PATTERN = /^(\*|[a-z0-9-]+(\.[a-z0-9_-]+)*(\.\*)?)$/;
