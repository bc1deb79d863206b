import { Suspense, useEffect, useRef } from 'react';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { API_REFERENCE_PATH } from './api-reference';
import { useSignedIn } from '../session/session-context';
import { NotificationBell } from '../organization/NotificationBell';
import { OrganizationSwitcher } from './OrganizationSwitcher';
import { useAvailablePages } from './page-availability';
import { HOME_PATH, PAGES } from './pages';
import { Link, matchPath, navigate, useCurrentPath } from './router';

/** The signed-in frame: top bar (organization, person, sign out), navigation, and the page. */
export function Shell() {
  const { me, organizationId, permissions, rpc, signOut } = useSignedIn();
  const path = useCurrentPath();
  const available = useAvailablePages(PAGES, rpc, organizationId, permissions);
  const main = useRef<HTMLElement>(null);
  const firstRender = useRef(true);

  const route = PAGES.map((page) => ({ page, params: matchPath(page.path, path) })).find((candidate) => candidate.params);
  const allowed = route && available?.includes(route.page);

  // The data when the person may read it, else the first page they may see.
  const home = available?.find((page) => page.path === HOME_PATH)?.path ?? available?.[0]?.path ?? HOME_PATH;
  useEffect(() => {
    if (path === '/' && available) navigate(home, { replace: true });
  }, [path, available, home]);

  useEffect(() => {
    document.title = `${route?.page.title ?? 'Console'} · Console`;
    // After moving to another page, focus goes to its content, as a page load would put it.
    if (firstRender.current) firstRender.current = false;
    else main.current?.focus();
  }, [path, route?.page.title]);

  // The data first: it is where signing in leads.
  const navPages = (available ?? []).filter((page) => page.nav).sort((a, b) => Number(b.path === HOME_PATH) - Number(a.path === HOME_PATH));

  // On a narrow screen the navigation is one scrolling row: the current page is kept in sight.
  useEffect(() => {
    document.querySelector('.sidebar [aria-current="page"]')?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [path, available]);
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Console</span>
        <OrganizationSwitcher />
        <NotificationBell current={path === '/inbox'} />
        <Link to="/account" className="topbar-user" title={`${me.user.email}: your account`} aria-current={path === '/account' ? 'page' : undefined}>
          {me.user.displayName}
          <span className="visually-hidden"> (your account)</span>
        </Link>
        <button type="button" className="button button-quiet" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <div className="layout">
        <nav className="sidebar" aria-label="Pages">
          <ul>
            {navPages.map((page) => (
              <li key={page.path}>
                <Link to={page.path} aria-current={route?.page === page || path.startsWith(`${page.path}/`) ? 'page' : undefined}>
                  {page.nav}
                </Link>
              </li>
            ))}
            <li>
              <a href={API_REFERENCE_PATH} target="_blank" rel="noopener" aria-label="API reference (opens in a new tab)">
                API reference
              </a>
            </li>
          </ul>
        </nav>
        <main id="main" ref={main} tabIndex={-1} className="content">
          {!available ? (
            <p className="loading" role="status">
              Loading…
            </p>
          ) : route && allowed ? (
            <ErrorBoundary key={path}>
              <Suspense
                fallback={
                  <p className="loading" role="status">
                    Loading…
                  </p>
                }
              >
                <route.page.component params={route.params ?? {}} />
              </Suspense>
            </ErrorBoundary>
          ) : path === '/' ? null : (
            <section>
              <h1>{route ? 'Not available' : 'Page not found'}</h1>
              <p>
                {route
                  ? 'This page is not available in this organization: it needs a permission you do not hold here, or a feature that is switched off.'
                  : 'There is no page at this address.'}
              </p>
              <p>
                <Link to={home}>Go to the first page</Link>
              </p>
            </section>
          )}
        </main>
      </div>
    </div>
  );
}
