import { Migration } from '@mikro-orm/migrations';

/**
 * `organizations.access_version` moves whenever what any member of the organization may do can
 * have changed: a role's permissions, a grant, a membership. Each change bumps it in its own
 * transaction, so a statement that sees the change sees the new version: a process may keep a
 * membership's roles and permissions as long as the version it read them with is still current.
 * Keys, users and their states are read live on every request and need no version.
 */
export class Migration20261126000300_organization_access_version extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE organizations ADD COLUMN access_version bigint NOT NULL DEFAULT 0');
    this.addSql(`
      CREATE FUNCTION bump_organization_access_version(organization uuid) RETURNS void LANGUAGE sql AS $$
        UPDATE organizations SET access_version = access_version + 1 WHERE id = organization
      $$`);
    this.addSql(`
      CREATE FUNCTION access_changed_by_role() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM bump_organization_access_version(OLD.organization_id); END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM bump_organization_access_version(NEW.organization_id); END IF;
        RETURN NULL;
      END $$`);
    this.addSql(`
      CREATE TRIGGER roles_access_changed
        AFTER INSERT OR DELETE OR UPDATE OF permissions, organization_id ON roles
        FOR EACH ROW EXECUTE FUNCTION access_changed_by_role()`);
    this.addSql(`
      CREATE FUNCTION access_changed_by_grant() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          PERFORM bump_organization_access_version((SELECT organization_id FROM memberships WHERE id = OLD.membership_id));
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          PERFORM bump_organization_access_version((SELECT organization_id FROM memberships WHERE id = NEW.membership_id));
        END IF;
        RETURN NULL;
      END $$`);
    this.addSql(`
      CREATE TRIGGER role_grants_access_changed
        AFTER INSERT OR DELETE OR UPDATE ON role_grants
        FOR EACH ROW EXECUTE FUNCTION access_changed_by_grant()`);
    this.addSql(`
      CREATE FUNCTION access_changed_by_membership() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM bump_organization_access_version(OLD.organization_id); END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM bump_organization_access_version(NEW.organization_id); END IF;
        RETURN NULL;
      END $$`);
    this.addSql(`
      CREATE TRIGGER memberships_access_changed
        AFTER INSERT OR DELETE OR UPDATE ON memberships
        FOR EACH ROW EXECUTE FUNCTION access_changed_by_membership()`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER memberships_access_changed ON memberships');
    this.addSql('DROP TRIGGER role_grants_access_changed ON role_grants');
    this.addSql('DROP TRIGGER roles_access_changed ON roles');
    this.addSql('DROP FUNCTION access_changed_by_membership()');
    this.addSql('DROP FUNCTION access_changed_by_grant()');
    this.addSql('DROP FUNCTION access_changed_by_role()');
    this.addSql('DROP FUNCTION bump_organization_access_version(uuid)');
    this.addSql('ALTER TABLE organizations DROP COLUMN access_version');
  }
}
