import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The channel on which a committed change to an event route (a webhook endpoint, an event
 * automation) is announced, by a trigger on the owner's table; the payload is the route's
 * organization id, or empty for a platform-wide route.
 */
export const ROUTES_CHANGED_CHANNEL = 'event_routes_changed';

export interface RouteCacheOptions<Route> {
  /** The live routes for events of these organizations (platform-wide ones included), read in the caller's transaction. */
  load(em: EntityManager, organizationIds: readonly string[]): Promise<Route[]>;
  /** A route's organization; null for a platform-wide route, which applies to every organization. */
  organizationOf(route: Route): string | null;
  idOf(route: Route): string;
  /** Organizations kept, least recently used dropped first. */
  maxOrganizations?: number;
}

/**
 * Which routes the events of an organization take, kept per process so that emitting an event
 * costs no lookup. It answers from memory only while it hears every change (`live`: the process
 * LISTENs on ROUTES_CHANGED_CHANNEL, see listenForRouteChanges); otherwise every call loads. A
 * change is forgotten at once in the process that committed it (`forget`, after commit) and
 * within milliseconds elsewhere (the notification). A load that overlapped a change is used for
 * its own call but never kept, so a cache can be late by the notification's travel, never stale.
 */
export class RouteCache<Route> {
  private readonly byOrganization = new Map<string, readonly Route[]>();
  private generation = 0;
  private live = false;
  private readonly maxOrganizations: number;

  constructor(private readonly options: RouteCacheOptions<Route>) {
    this.maxOrganizations = options.maxOrganizations ?? 10_000;
  }

  async routesFor(em: EntityManager, organizationIds: readonly string[]): Promise<Route[]> {
    if (!this.live) return this.options.load(em, organizationIds);
    const found = new Map<string, Route>();
    const missing: string[] = [];
    for (const organizationId of organizationIds) {
      const routes = this.byOrganization.get(organizationId);
      if (!routes) {
        missing.push(organizationId);
        continue;
      }
      // Most recently used last, so the first key is the one to drop.
      this.byOrganization.delete(organizationId);
      this.byOrganization.set(organizationId, routes);
      for (const route of routes) found.set(this.options.idOf(route), route);
    }
    if (missing.length > 0) {
      const generation = this.generation;
      const loaded = await this.options.load(em, missing);
      for (const route of loaded) found.set(this.options.idOf(route), route);
      if (this.live && generation === this.generation) this.keep(missing, loaded);
    }
    return [...found.values()];
  }

  /** A route of this organization changed (null: a platform-wide one, or unknown): forget what applies. */
  forget(organizationId: string | null): void {
    this.generation += 1;
    if (organizationId === null) this.byOrganization.clear();
    else this.byOrganization.delete(organizationId);
  }

  /** Whether changes are heard; going either way forgets everything. */
  setLive(live: boolean): void {
    this.forget(null);
    this.live = live;
  }

  private keep(organizationIds: readonly string[], loaded: readonly Route[]): void {
    for (const organizationId of organizationIds) {
      const routes = loaded.filter((route) => {
        const owner = this.options.organizationOf(route);
        return owner === null || owner === organizationId;
      });
      this.byOrganization.set(organizationId, routes);
    }
    while (this.byOrganization.size > this.maxOrganizations) {
      const oldest = this.byOrganization.keys().next().value as string;
      this.byOrganization.delete(oldest);
    }
  }
}
