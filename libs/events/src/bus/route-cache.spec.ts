import type { EntityManager } from '@mikro-orm/postgresql';
import { RouteCache } from './route-cache';

interface Route {
  id: string;
  organizationId: string | null;
}

const em = {} as EntityManager;

function cacheOver(table: Route[]) {
  const loads: string[][] = [];
  let pause: Promise<void> | undefined;
  const cache = new RouteCache<Route>({
    async load(_em, organizationIds) {
      loads.push([...organizationIds]);
      const snapshot = table.filter((route) => route.organizationId === null || organizationIds.includes(route.organizationId));
      if (pause) await pause;
      return snapshot;
    },
    organizationOf: (route) => route.organizationId,
    idOf: (route) => route.id,
    maxOrganizations: 2,
  });
  return { cache, loads, pauseLoads: (until: Promise<void>) => (pause = until) };
}

const ids = (routes: Route[]) => routes.map((route) => route.id).sort();

describe('RouteCache', () => {
  it('loads on every call until it hears changes', async () => {
    const { cache, loads } = cacheOver([{ id: 'a1', organizationId: 'a' }]);
    await cache.routesFor(em, ['a']);
    await cache.routesFor(em, ['a']);
    expect(loads).toEqual([['a'], ['a']]);
  });

  it('answers from memory while live, platform-wide routes included once', async () => {
    const { cache, loads } = cacheOver([
      { id: 'a1', organizationId: 'a' },
      { id: 'b1', organizationId: 'b' },
      { id: 'p1', organizationId: null },
    ]);
    cache.setLive(true);
    expect(ids(await cache.routesFor(em, ['a']))).toEqual(['a1', 'p1']);
    expect(ids(await cache.routesFor(em, ['a', 'b']))).toEqual(['a1', 'b1', 'p1']);
    expect(ids(await cache.routesFor(em, ['b', 'a']))).toEqual(['a1', 'b1', 'p1']);
    expect(loads).toEqual([['a'], ['b']]);
  });

  it('forgets an organization, or everything for a platform-wide change', async () => {
    const table: Route[] = [{ id: 'a1', organizationId: 'a' }];
    const { cache } = cacheOver(table);
    cache.setLive(true);
    await cache.routesFor(em, ['a']);
    table.push({ id: 'a2', organizationId: 'a' });
    expect(ids(await cache.routesFor(em, ['a']))).toEqual(['a1']);
    cache.forget('a');
    expect(ids(await cache.routesFor(em, ['a']))).toEqual(['a1', 'a2']);
    table.push({ id: 'p1', organizationId: null });
    cache.forget(null);
    expect(ids(await cache.routesFor(em, ['a']))).toEqual(['a1', 'a2', 'p1']);
  });

  it('never keeps a load that a change overtook', async () => {
    const table: Route[] = [{ id: 'a1', organizationId: 'a' }];
    const { cache, pauseLoads } = cacheOver(table);
    cache.setLive(true);
    let resume = () => undefined as void;
    pauseLoads(new Promise<void>((resolve) => (resume = resolve)));
    const stale = cache.routesFor(em, ['a']);
    // The load read its rows; a change commits and is announced before the load returns.
    table.push({ id: 'a2', organizationId: 'a' });
    cache.forget('a');
    resume();
    expect(ids(await stale)).toEqual(['a1']);
    pauseLoads(Promise.resolve());
    expect(ids(await cache.routesFor(em, ['a']))).toEqual(['a1', 'a2']);
  });

  it('stops answering from memory when it stops hearing changes', async () => {
    const table: Route[] = [{ id: 'a1', organizationId: 'a' }];
    const { cache, loads } = cacheOver(table);
    cache.setLive(true);
    await cache.routesFor(em, ['a']);
    cache.setLive(false);
    table.push({ id: 'a2', organizationId: 'a' });
    expect(ids(await cache.routesFor(em, ['a']))).toEqual(['a1', 'a2']);
    cache.setLive(true);
    expect(ids(await cache.routesFor(em, ['a']))).toEqual(['a1', 'a2']);
    expect(loads).toHaveLength(3);
  });

  it('keeps at most maxOrganizations, dropping the least recently used', async () => {
    const { cache, loads } = cacheOver([]);
    cache.setLive(true);
    await cache.routesFor(em, ['a']);
    await cache.routesFor(em, ['b']);
    await cache.routesFor(em, ['a']);
    await cache.routesFor(em, ['c']);
    await cache.routesFor(em, ['a']);
    await cache.routesFor(em, ['b']);
    expect(loads).toEqual([['a'], ['b'], ['c'], ['b']]);
  });
});
