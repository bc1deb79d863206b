import fc from 'fast-check';
import { newId, sqlTextArray, type Principal } from '@mrp/platform';
import { silentLogger } from '@mrp/platform/testing';
import { generateApiKeyToken } from '../api-keys/api-key-token';
import { authenticateApiKey, resolveApiKeyPrincipal } from '../api-keys/resolve-api-key-principal';
import { createAuthzHarness, seedMembership, seedRole, type AuthzHarness } from '@mrp/authz/testing';
import { membershipPermissions } from '../organizations/memberships';
import { PostgresRateLimiter } from '../rate-limit/postgres-rate-limiter';
import { ALL_PERMISSIONS } from '../rbac/permission-catalog';
import { newServiceAccountId, serviceAccountEmail } from '../service-accounts/service-account-identity';
import { serviceAccountPermissions } from '../service-accounts/service-account-store';
import type { SessionClaims } from '../session/session-verifier';
import { membersHolding } from '../directory/directory';
import { loadOrganizationAccess } from './organization-access';

/** What a credential may do in the organization: its role ids and permissions, or nothing at all. */
type Access = { roleIds: string[]; permissions: string[] } | 'none';

/** The model the database must agree with: which roles exist, which the subject holds, its state. */
interface Model {
  organizationId: string;
  roles: Map<string, string[]>;
  customRoleIds: string[];
  held: Set<string>;
  membershipId: string | null;
  disabled: boolean;
  deleted: boolean;
}

interface Subject {
  kind: 'HUMAN' | 'SERVICE';
  userId: string;
  claims: SessionClaims | null;
  token: string;
}

function expectedAccess(model: Model): Access {
  if (model.disabled || model.deleted || model.membershipId === null) return 'none';
  const roleIds = [...model.held].filter((id) => model.roles.has(id)).sort();
  const permissions = [...new Set(roleIds.flatMap((id) => model.roles.get(id) ?? []))].sort();
  return { roleIds, permissions };
}

const accessOf = (principal: Principal): Access => ({
  roleIds: [...principal.roleIds].sort(),
  permissions: [...principal.permissions].sort(),
});

/** A refusal that grants nothing (401 for a key; 401 or the 404 of a non-member for a session) is no access. */
async function accessOrNone(resolve: () => Promise<Principal>): Promise<Access> {
  try {
    return accessOf(await resolve());
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'unauthorized' || code === 'not_found') return 'none';
    throw error;
  }
}

describe('one rule for the effective permissions of a member, whatever the credential', () => {
  let h: AuthzHarness;
  let limiter: PostgresRateLimiter;
  beforeAll(async () => {
    h = await createAuthzHarness();
    limiter = new PostgresRateLimiter(h.db.orm, { ratePerSecond: 1000, burst: 1_000_000 });
  });
  afterAll(() => h.close());

  const orm = () => h.db.orm;
  const keyOptions = { serviceAccountsEnabled: true, logger: silentLogger };

  async function newOrganization(): Promise<Model> {
    const owner = h.person('org-owner');
    const org = await h.call<{ id: string }>('organizations.create', { name: `Access ${newId()}` }, owner);
    const rows = await h.sql<{ id: string; permissions: string[] }>('SELECT id, permissions FROM roles WHERE organization_id = ?', [org.id]);
    return {
      organizationId: org.id,
      roles: new Map(rows.map((row) => [row.id, [...row.permissions]])),
      customRoleIds: [],
      held: new Set(),
      membershipId: null,
      disabled: false,
      deleted: false,
    };
  }

  async function addCustomRole(model: Model, permissions: string[]): Promise<string> {
    const id = await seedRole(orm(), model.organizationId, `custom-${newId().slice(-12)}`, permissions);
    model.roles.set(id, permissions);
    model.customRoleIds.push(id);
    return id;
  }

  async function newSubject(model: Model, kind: Subject['kind'], roleIds: string[]): Promise<Subject> {
    let userId: string;
    let claims: SessionClaims | null = null;
    if (kind === 'HUMAN') {
      claims = h.person('subject');
      await h.principal(claims);
      userId = claims.sub;
    } else {
      userId = newServiceAccountId();
      await h.sql("INSERT INTO users (id, email, email_verified, kind, display_name) VALUES (?, ?, true, 'SERVICE', 'Robot')", [
        userId,
        serviceAccountEmail(userId),
      ]);
    }
    model.membershipId = await seedMembership(orm(), model.organizationId, userId, roleIds);
    model.held = new Set(roleIds);
    const { token, prefix, hash } = generateApiKeyToken();
    await h.sql(
      `INSERT INTO api_keys (id, organization_id, owner_user_id, name, token_hash, prefix, full_access, created_by)
       VALUES (?, ?, ?, 'equivalence', ?, ?, true, ?)`,
      [newId(), model.organizationId, userId, hash, prefix, userId],
    );
    return { kind, userId, claims, token };
  }

  /** Every way the rule is asked, side by side with what the model says. */
  async function expectOneAnswer(model: Model, subject: Subject): Promise<void> {
    const expected = expectedAccess(model);
    const byKey = await accessOrNone(() => resolveApiKeyPrincipal(orm().em.fork(), subject.token, keyOptions));
    const byKeyWithTake = await accessOrNone(async () => {
      const { principal } = await authenticateApiKey(orm().em.fork(), subject.token, { ...keyOptions, rateLimiter: limiter });
      return principal;
    });
    expect({ byKey, byKeyWithTake }).toEqual({ byKey: expected, byKeyWithTake: expected });

    if (subject.claims) {
      const bySession = await accessOrNone(() => h.principal(subject.claims!, model.organizationId));
      expect({ bySession }).toEqual({ bySession: expected });
    }
    // What work done on a member's behalf asks (a calendar reminder): a live member holding the permission, with their roles.
    for (const permission of ['records.read', 'webhooks.manage']) {
      const holders = await membersHolding(orm().em.fork(), model.organizationId, [subject.userId], permission);
      expect({ permission, holder: holders.get(subject.userId) ?? 'none' }).toEqual({
        permission,
        holder: expected !== 'none' && expected.permissions.includes(permission) ? expected.roleIds : 'none',
      });
    }
    // What grant ceilings and administration compare against: the member's access, whatever their state.
    const held = expectedAccess({ ...model, disabled: false, deleted: false });
    const access = await loadOrganizationAccess(orm().em.fork(), subject.userId, model.organizationId);
    expect(access === null ? 'none' : { roleIds: access.roleIds, permissions: access.permissions }).toEqual(held);
    if (model.membershipId !== null && held !== 'none') {
      expect(await membershipPermissions(orm().em.fork(), model.membershipId)).toEqual(held.permissions);
    }
    if (subject.kind === 'SERVICE') {
      expect(await serviceAccountPermissions(orm().em.fork(), model.organizationId, subject.userId)).toEqual(
        held === 'none' ? [] : held.permissions,
      );
    }
  }

  const builtInRoleId = (model: Model, key: string) =>
    h.sql<{ id: string }>('SELECT id FROM roles WHERE organization_id = ? AND key = ?', [model.organizationId, key]).then(([row]) => row.id);

  it.each(['HUMAN', 'SERVICE'] as const)('a %s with overlapping built-in and custom roles', async (kind) => {
    const model = await newOrganization();
    const custom = await addCustomRole(model, ['webhooks.manage', 'records.read']);
    const empty = await addCustomRole(model, []);
    const subject = await newSubject(model, kind, [await builtInRoleId(model, 'read-only'), custom, empty]);
    await expectOneAnswer(model, subject);

    await h.sql('UPDATE roles SET permissions = ?::text[] WHERE id = ?', [sqlTextArray(['automations.manage']), custom]);
    model.roles.set(custom, ['automations.manage']);
    await expectOneAnswer(model, subject);
  });

  it.each(['HUMAN', 'SERVICE'] as const)('a %s whose grant is revoked, or whose role is deleted, loses it everywhere', async (kind) => {
    const model = await newOrganization();
    const custom = await addCustomRole(model, ['records.purge']);
    const member = await builtInRoleId(model, 'member');
    const subject = await newSubject(model, kind, [member, custom]);
    await h.sql('DELETE FROM role_grants WHERE membership_id = ? AND role_id = ?', [model.membershipId, member]);
    model.held.delete(member);
    await expectOneAnswer(model, subject);
    await h.sql('DELETE FROM roles WHERE id = ?', [custom]);
    model.roles.delete(custom);
    await expectOneAnswer(model, subject);
  });

  it.each([
    ['HUMAN', 'disabled_at'],
    ['HUMAN', 'deleted_at'],
    ['SERVICE', 'disabled_at'],
    ['SERVICE', 'deleted_at'],
  ] as const)('a %s with %s set can act by no credential, and acts again once it is cleared', async (kind, column) => {
    const model = await newOrganization();
    const subject = await newSubject(model, kind, [await builtInRoleId(model, 'admin')]);
    await h.sql(`UPDATE users SET ${column} = now() WHERE id = ?`, [subject.userId]);
    model.disabled = column === 'disabled_at';
    model.deleted = column === 'deleted_at';
    await expectOneAnswer(model, subject);
    await h.sql(`UPDATE users SET ${column} = NULL WHERE id = ?`, [subject.userId]);
    model.disabled = false;
    model.deleted = false;
    await expectOneAnswer(model, subject);
  });

  it('agrees under any sequence of role, grant, state and membership changes (property)', async () => {
    const permissionSet = fc.subarray([...ALL_PERMISSIONS]);
    const change = fc.oneof(
      fc.record({ type: fc.constant('grant' as const), pick: fc.nat() }),
      fc.record({ type: fc.constant('revoke' as const), pick: fc.nat() }),
      fc.record({ type: fc.constant('redefine' as const), pick: fc.nat(), permissions: permissionSet }),
      fc.record({ type: fc.constant('deleteRole' as const), pick: fc.nat() }),
      fc.record({ type: fc.constantFrom('disable' as const, 'enable' as const, 'delete' as const, 'undelete' as const, 'leave' as const, 'rejoin' as const) }),
    );
    const scenario = fc.record({
      kind: fc.constantFrom('HUMAN' as const, 'SERVICE' as const),
      customRoles: fc.array(permissionSet, { maxLength: 3 }),
      initialRoles: fc.array(fc.nat(), { maxLength: 4 }),
      changes: fc.array(change, { minLength: 1, maxLength: 6 }),
    });

    await fc.assert(
      fc.asyncProperty(scenario, async ({ kind, customRoles, initialRoles, changes }) => {
        const model = await newOrganization();
        for (const permissions of customRoles) await addCustomRole(model, permissions);
        const roleAt = (pick: number) => [...model.roles.keys()][pick % model.roles.size];
        const subject = await newSubject(model, kind, [...new Set(initialRoles.map(roleAt))]);
        await expectOneAnswer(model, subject);

        for (const step of changes) {
          const user = subject.userId;
          switch (step.type) {
            case 'grant': {
              const roleId = roleAt(step.pick);
              if (model.membershipId === null || model.held.has(roleId)) break;
              await h.sql("INSERT INTO role_grants (id, membership_id, role_id, granted_by) VALUES (?, ?, ?, 'test')", [newId(), model.membershipId, roleId]);
              model.held.add(roleId);
              break;
            }
            case 'revoke': {
              const roleId = roleAt(step.pick);
              await h.sql('DELETE FROM role_grants WHERE role_id = ? AND membership_id IN (SELECT id FROM memberships WHERE user_id = ?)', [roleId, user]);
              model.held.delete(roleId);
              break;
            }
            case 'redefine':
            case 'deleteRole': {
              if (model.customRoleIds.length === 0) break;
              const roleId = model.customRoleIds[step.pick % model.customRoleIds.length];
              if (!model.roles.has(roleId)) break;
              if (step.type === 'redefine') {
                await h.sql('UPDATE roles SET permissions = ?::text[] WHERE id = ?', [sqlTextArray(step.permissions), roleId]);
                model.roles.set(roleId, [...step.permissions]);
              } else {
                await h.sql('DELETE FROM roles WHERE id = ?', [roleId]);
                model.roles.delete(roleId);
                model.held.delete(roleId);
              }
              break;
            }
            case 'disable':
            case 'enable':
              await h.sql(`UPDATE users SET disabled_at = ${step.type === 'disable' ? 'now()' : 'NULL'} WHERE id = ?`, [user]);
              model.disabled = step.type === 'disable';
              break;
            case 'delete':
            case 'undelete':
              await h.sql(`UPDATE users SET deleted_at = ${step.type === 'delete' ? 'now()' : 'NULL'} WHERE id = ?`, [user]);
              model.deleted = step.type === 'delete';
              break;
            case 'leave':
              await h.sql('DELETE FROM memberships WHERE organization_id = ? AND user_id = ?', [model.organizationId, user]);
              model.membershipId = null;
              model.held.clear();
              break;
            case 'rejoin':
              if (model.membershipId !== null) break;
              model.membershipId = await seedMembership(orm(), model.organizationId, user, []);
              break;
          }
          await expectOneAnswer(model, subject);
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
