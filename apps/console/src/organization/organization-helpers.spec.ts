import { describe, expect, it } from 'vitest';
import { inviteLink, tokenFromFragment } from './invite-link';
import { roleChanges, roleKeyFromName } from './role-changes';

describe('invite links', () => {
  it('carry the token in the fragment, and read it back', () => {
    const link = inviteLink('https://console.example', 'inv_abc-DEF_123');
    expect(link).toBe('https://console.example/join#inv_abc-DEF_123');
    expect(tokenFromFragment(new URL(link).hash)).toBe('inv_abc-DEF_123');
    expect(tokenFromFragment('')).toBeNull();
    expect(tokenFromFragment('#  ')).toBeNull();
  });
});

describe('a member’s role changes', () => {
  it('grants the new roles before revoking the dropped ones', () => {
    expect(roleChanges(['owner', 'member'], new Set(['admin', 'member']))).toEqual([
      { procedure: 'rbac.roles.assign', roleKey: 'admin' },
      { procedure: 'rbac.roles.revoke', roleKey: 'owner' },
    ]);
    expect(roleChanges(['member'], new Set(['member']))).toEqual([]);
  });

  it('derives a role key the server accepts from a name', () => {
    expect(roleKeyFromName('Sales Managers')).toBe('sales-managers');
    expect(roleKeyFromName('  2nd-line Support! ')).toBe('nd-line-support');
    expect(roleKeyFromName('Équipe café')).toBe('equipe-cafe');
    expect(roleKeyFromName('!!!')).toBe('');
  });
});
