import { beforeEach, describe, expect, it } from 'vitest';
import { chooseOrganization, loadStoredSession, storeOrganization, storeToken } from './session-storage';

describe('the stored session', () => {
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
  });

  it('keeps the token for the tab only and the organization as a preference', () => {
    storeToken('jwt');
    storeOrganization('org-2');
    expect(loadStoredSession()).toEqual({ token: 'jwt', organizationId: 'org-2' });
    expect(localStorage.getItem('console.session')).toBeNull();
    storeToken(null);
    expect(loadStoredSession()).toEqual({ token: null, organizationId: 'org-2' });
  });

  it('acts in the stored organization while the person is still a member, else in their first', () => {
    expect(chooseOrganization(['org-1', 'org-2'], 'org-2')).toBe('org-2');
    expect(chooseOrganization(['org-1', 'org-2'], 'org-gone')).toBe('org-1');
    expect(chooseOrganization(['org-1'], null)).toBe('org-1');
    expect(chooseOrganization([], 'org-1')).toBeNull();
  });
});
