import { Migration } from '@mikro-orm/migrations';
import { Migration20261206000100_record_export_text as ExportTextFunctions } from './Migration20261206000100_record_export_text';

/**
 * Drops the functions with which the database wrote an export's lines: the api writes them now,
 * with the list's own writer (decision 164). Down makes them again, as their migration did.
 */
export class Migration20261210000100_drop_record_export_text extends Migration {
  override async up(): Promise<void> {
    await this.replay((functions) => functions.down());
  }

  override async down(): Promise<void> {
    await this.replay((functions) => functions.up());
  }

  /** The statements of one direction of the functions' own migration, as this one's. */
  private async replay(direction: (functions: Migration) => void | Promise<void>): Promise<void> {
    const functions = new ExportTextFunctions(this.driver, this.config);
    await direction(functions);
    for (const query of functions.getQueries()) this.addSql(query);
  }
}
