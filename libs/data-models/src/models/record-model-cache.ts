import type { RecordModel } from './model-store';

export const DEFAULT_MODEL_CACHE_SIZE = 1000;

/**
 * Models with their field definitions, by organization and key, kept by this process between
 * calls. An entry is only a guess: a writer must re-check its `fieldsVersion` in the statement
 * that writes (see `insertRecordIfCurrent`), and reload when the guess is stale.
 */
export class RecordModelCache {
  // Two levels rather than one joined key: a lookup builds no string (it runs on every create).
  private readonly byOrganization = new Map<string, Map<string, RecordModel>>();
  private size = 0;

  constructor(private readonly capacity = DEFAULT_MODEL_CACHE_SIZE) {}

  get(organizationId: string, key: string): RecordModel | undefined {
    return this.byOrganization.get(organizationId)?.get(key);
  }

  set(organizationId: string, model: RecordModel): void {
    let models = this.byOrganization.get(organizationId);
    if (!models) {
      models = new Map();
      this.byOrganization.set(organizationId, models);
    }
    // Re-inserting moves the entry behind the others of its organization.
    if (models.delete(model.model.key)) this.size -= 1;
    models.set(model.model.key, model);
    this.size += 1;
    while (this.size > this.capacity) this.evictOldest();
  }

  delete(organizationId: string, key: string): void {
    const models = this.byOrganization.get(organizationId);
    if (models?.delete(key)) this.size -= 1;
  }

  /** The first-stored model of the first-stored organization. */
  private evictOldest(): void {
    const oldest = this.byOrganization.entries().next();
    if (oldest.done) return;
    const [organizationId, models] = oldest.value;
    const first = models.keys().next();
    if (!first.done) {
      models.delete(first.value);
      this.size -= 1;
    }
    if (models.size === 0) this.byOrganization.delete(organizationId);
  }
}
