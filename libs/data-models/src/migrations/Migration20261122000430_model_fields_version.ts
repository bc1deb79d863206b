import { Migration } from '@mikro-orm/migrations';

/**
 * `data_models.fields_version` changes whenever any of the model's fields is added, changed or
 * removed, by whatever path (a trigger, so no writer can forget it). Record writes cache a model's
 * field definitions per process and re-check this version in the INSERT itself, so a field change
 * committed by another process is never missed. Values come from a sequence, never from `+ 1`:
 * a rolled-back change can then never hand a later, different change the same version.
 */
export class Migration20261122000430_model_fields_version extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE SEQUENCE data_models_fields_version`);
    this.addSql(`ALTER TABLE data_models ADD COLUMN fields_version bigint NOT NULL DEFAULT nextval('data_models_fields_version')`);
    this.addSql(`ALTER SEQUENCE data_models_fields_version OWNED BY data_models.fields_version`);
    // OLD is NULL on INSERT and NEW is NULL on DELETE; an UPDATE bumps the model it leaves and the one it joins.
    this.addSql(`
      CREATE FUNCTION data_models_bump_fields_version() RETURNS trigger
      LANGUAGE plpgsql
      AS $$
      BEGIN
        UPDATE data_models SET fields_version = nextval('data_models_fields_version')
         WHERE id IN (OLD.model_id, NEW.model_id);
        RETURN NULL;
      END
      $$`);
    this.addSql(`
      CREATE TRIGGER data_fields_bump_model_fields_version
      AFTER INSERT OR UPDATE OR DELETE ON data_fields
      FOR EACH ROW EXECUTE FUNCTION data_models_bump_fields_version()`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER data_fields_bump_model_fields_version ON data_fields');
    this.addSql('DROP FUNCTION data_models_bump_fields_version()');
    this.addSql('ALTER TABLE data_models DROP COLUMN fields_version');
  }
}
