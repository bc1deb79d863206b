/**
 * The subscription rules of the events lib (docs/webhooks.md, Subscriptions), for the picker: a
 * pattern is `*`, a type of the catalog, a per-model record type or a prefix ending in `.*`. The
 * server checks again and has the last word; this only spares a round trip for a typo.
 */

export const RECORD_EVENT_TYPE = /^data-models\.[a-z][a-z0-9_]{0,62}\.record-(created|updated|deleted)$/;
const PREFIX = /^[a-z][a-z0-9-]*(\.[a-z0-9_-]+)*\.\*$/;
export const RECORD_ACTIONS = ['created', 'updated', 'deleted'] as const;

/** Why a pattern can match nothing, or undefined when it is fine. */
export function subscriptionProblem(pattern: string, knownTypes: ReadonlySet<string>): string | undefined {
  if (pattern === '*' || knownTypes.has(pattern) || RECORD_EVENT_TYPE.test(pattern)) return undefined;
  if (pattern.endsWith('.*')) return PREFIX.test(pattern) ? undefined : 'is not a valid prefix (e.g. data-models.*)';
  return 'is not an event type of the catalog, a prefix ending in .* or *';
}

export function patternMatchesType(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

/** The catalog's types by their first segment (`data-models`, `rbac`, ...), in the catalog's order. */
export function groupByModule(types: readonly string[]): Array<{ module: string; types: string[] }> {
  const groups = new Map<string, string[]>();
  for (const type of types) {
    const module = type.split('.')[0] as string;
    groups.set(module, [...(groups.get(module) ?? []), type]);
  }
  return [...groups].map(([module, members]) => ({ module, types: members }));
}

/** The three per-model record types of a model. */
export function recordTypesOf(modelKey: string): string[] {
  return RECORD_ACTIONS.map((action) => `data-models.${modelKey}.record-${action}`);
}

/** Types no webhook ever receives (docs/webhooks.md): offered nowhere in the picker. */
export const isNeverDelivered = (type: string) => type.startsWith('webhook.');

/**
 * The per-model names (`data-models.deals.record-created`) under which an endpoint's
 * subscriptions took an event its type alone (`data-models.record-created`) would not have
 * matched: the event's `subscriptionAliases` that some subscription matches. Empty when the type
 * itself matched.
 */
export function matchedAliases(event: { type: string; subscriptionAliases?: readonly string[] }, subscriptions: readonly string[]): string[] {
  if (subscriptions.some((pattern) => patternMatchesType(pattern, event.type))) return [];
  return (event.subscriptionAliases ?? []).filter((alias) => subscriptions.some((pattern) => patternMatchesType(pattern, alias)));
}

const GENERAL_RECORD_TYPE = /^data-models\.record-(created|updated|deleted)$/;

/**
 * For a delivery listed without its event: the per-model names of `type` that the endpoint's
 * subscriptions name or cover (`data-models.deals.*`). Several when the endpoint follows several
 * models; empty when the type itself matched or is no record event.
 */
export function possibleAliases(type: string, subscriptions: readonly string[]): string[] {
  const action = GENERAL_RECORD_TYPE.exec(type)?.[1];
  if (!action || subscriptions.some((pattern) => patternMatchesType(pattern, type))) return [];
  const aliases = new Set<string>();
  for (const pattern of subscriptions) {
    const model = /^data-models\.([a-z][a-z0-9_]{0,62})\.(\*|record-(created|updated|deleted))$/.exec(pattern);
    if (model && (model[2] === '*' || model[3] === action)) aliases.add(`data-models.${model[1]}.record-${action}`);
  }
  return [...aliases];
}
