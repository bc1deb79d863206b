import { conflict, defineProcedure, forbidden, newId, validationFailed } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { BUILT_IN_ROLES } from '../rbac/permission-catalog';
import { rethrowUniqueViolation, sqlTextArray } from '../db/sql-values';
import { addOrganizationMember } from './memberships';
import { OrganizationsCreateInput, OrganizationsGetInput, OrganizationsUpdateInput } from './organization-inputs';
import { ORGANIZATION_COLUMNS, listMembers, requireOrganization, toOrganizationView, type OrganizationRow } from './organization-rows';
import { OrganizationViewSchema, OrganizationWithMembersSchema } from './organization-view';
import { slugFromName } from './slug';

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw validationFailed([{ field: 'name', code: 'required', message: 'must not be blank' }]);
  return trimmed;
}

const slugTaken = (slug: string) => `The slug "${slug}" is already taken`;

export const createOrganization = defineProcedure({
  name: 'organizations.create',
  summary: 'Create an organization; the caller becomes its owner',
  scope: 'user',
  permission: null,
  input: OrganizationsCreateInput,
  output: OrganizationViewSchema,
  async handler(ctx, input) {
    if (ctx.principal.kind !== 'HUMAN') throw forbidden('Service accounts cannot create organizations');
    const name = cleanName(input.name);
    const slug = input.slug ?? slugFromName(name);
    if (!slug) {
      throw validationFailed([
        { field: 'slug', code: 'required', message: 'cannot be derived from this name; give a slug (a-z, 0-9, dashes)' },
      ]);
    }
    const [organization] = await ctx.em.execute<OrganizationRow[]>(
      `INSERT INTO organizations (id, name, slug, created_by) VALUES (?, ?, ?, ?)
       ON CONFLICT (slug) DO NOTHING
       RETURNING ${ORGANIZATION_COLUMNS}`,
      [newId(), name, slug, ctx.principal.userId],
    );
    if (!organization) throw conflict(slugTaken(slug));

    const ownerRoleId = newId();
    for (const role of BUILT_IN_ROLES) {
      const roleId = role.key === 'owner' ? ownerRoleId : newId();
      await ctx.em.execute(
        `INSERT INTO roles (id, organization_id, key, name, description, permissions, built_in)
         VALUES (?, ?, ?, ?, ?, ?::text[], true)`,
        [roleId, organization.id, role.key, role.name, role.description, sqlTextArray(role.permissions)],
      );
    }
    await addOrganizationMember(ctx.em, {
      organizationId: organization.id,
      userId: ctx.principal.userId,
      roleIds: [ownerRoleId],
      grantedBy: ctx.principal.userId,
    });

    ctx.emit(
      createEvent(
        'organization.created',
        { organizationId: organization.id, name, slug, createdBy: ctx.principal.userId },
        { organizationId: organization.id },
      ),
    );
    ctx.emit(
      createEvent(
        'organization.member-joined',
        { organizationId: organization.id, userId: ctx.principal.userId, roleKeys: ['owner'] },
        { organizationId: organization.id, userId: ctx.principal.userId },
      ),
    );
    return toOrganizationView(organization);
  },
});

export const getOrganization = defineProcedure({
  name: 'organizations.get',
  summary: 'The active organization and its members',
  scope: 'organization',
  permission: null,
  readOnly: true,
  input: OrganizationsGetInput,
  output: OrganizationWithMembersSchema,
  async handler(ctx) {
    const organization = await requireOrganization(ctx.em, ctx.organizationId);
    return { ...toOrganizationView(organization), members: await listMembers(ctx.em, ctx.organizationId) };
  },
});

export const updateOrganization = defineProcedure({
  name: 'organizations.update',
  summary: 'Rename the active organization or change its slug',
  scope: 'organization',
  permission: 'organization.manage',
  input: OrganizationsUpdateInput,
  output: OrganizationViewSchema,
  async handler(ctx, input) {
    const current = await requireOrganization(ctx.em, ctx.organizationId);
    const name = input.name === undefined ? current.name : cleanName(input.name);
    const slug = input.slug ?? current.slug;
    const changes = [...(name !== current.name ? ['name'] : []), ...(slug !== current.slug ? ['slug'] : [])];
    if (changes.length === 0) return toOrganizationView(current);

    const [updated] = await ctx.em
      .execute<OrganizationRow[]>(
        `UPDATE organizations SET name = ?, slug = ?, updated_at = now() WHERE id = ? RETURNING ${ORGANIZATION_COLUMNS}`,
        [name, slug, ctx.organizationId],
      )
      .catch((error: unknown) => rethrowUniqueViolation(error, slugTaken(slug)));
    ctx.emit(
      createEvent(
        'organization.updated',
        { organizationId: ctx.organizationId, changes },
        { organizationId: ctx.organizationId },
      ),
    );
    return toOrganizationView(updated);
  },
});

export function createOrganizationProcedures() {
  return [createOrganization, getOrganization, updateOrganization];
}
