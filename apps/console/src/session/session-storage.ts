/**
 * Where the console keeps the session between reloads. The token lives in sessionStorage: it ends
 * with the tab, so a shared computer does not keep a credential after the window is closed; a new
 * tab gets it from an open one over session-channel.ts. The chosen organization is a preference,
 * kept in localStorage.
 */
const TOKEN_KEY = 'console.session';
const ORGANIZATION_KEY = 'console.organization';

export interface StoredSession {
  token: string | null;
  organizationId: string | null;
}

export function loadStoredSession(): StoredSession {
  return { token: sessionStorage.getItem(TOKEN_KEY), organizationId: localStorage.getItem(ORGANIZATION_KEY) };
}

export function storeToken(token: string | null): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export function storeOrganization(organizationId: string | null): void {
  if (organizationId) localStorage.setItem(ORGANIZATION_KEY, organizationId);
  else localStorage.removeItem(ORGANIZATION_KEY);
}

/**
 * The organization to act in: the stored choice while the person is still a member of it,
 * otherwise their first organization, or none.
 */
export function chooseOrganization(organizationIds: readonly string[], preferred: string | null): string | null {
  if (preferred && organizationIds.includes(preferred)) return preferred;
  return organizationIds[0] ?? null;
}
