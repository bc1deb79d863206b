import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../database/orm';
import { FEATURE_FLAG_KEYS, KNOWN_FEATURE_FLAGS, type FeatureFlagKey } from './known-flags';

export interface FeatureFlagState {
  key: FeatureFlagKey;
  enabled: boolean;
  description: string;
  /** Where the value comes from: a stored flip, the FEATURE_FLAGS boot default, or the built-in default. */
  source: 'stored' | 'boot-default' | 'built-in';
  updatedAt: string | null;
}

interface StoredFlag {
  key: string;
  enabled: boolean;
  updated_at: string | Date;
}

/**
 * Reads flags from the database with a short-lived snapshot. Every process re-reads at most
 * every `maxAgeMs`, so a flip made by any process is seen everywhere within that bound
 * (the contract asks for one second), at the cost of a tiny query a few times a second.
 */
export class FeatureFlagStore {
  private snapshot: { at: number; rows: Map<string, StoredFlag> } | undefined;
  private inflight: Promise<Map<string, StoredFlag>> | undefined;

  constructor(
    private readonly orm: Orm,
    private readonly bootDefaults: Readonly<Record<string, boolean>> = {},
    private readonly maxAgeMs = 500,
    private readonly now: () => number = Date.now,
  ) {}

  async isEnabled(key: FeatureFlagKey): Promise<boolean> {
    // Read on every request: only the value, none of the state `list` describes.
    const stored = (await this.rows()).get(key);
    return stored ? stored.enabled : this.defaultValue(key);
  }

  async list(): Promise<FeatureFlagState[]> {
    const rows = await this.rows();
    return FEATURE_FLAG_KEYS.map((key) => this.resolve(key, rows));
  }

  /** Writes within the caller's transaction; the local snapshot is dropped so this process sees it at once. */
  async set(em: EntityManager, key: FeatureFlagKey, enabled: boolean, updatedBy: string): Promise<{ previous: boolean }> {
    const previous = await this.isEnabled(key);
    await em.execute(
      `INSERT INTO feature_flags (key, enabled, updated_at, updated_by) VALUES (?, ?, now(), ?)
       ON CONFLICT (key) DO UPDATE SET enabled = excluded.enabled, updated_at = now(), updated_by = excluded.updated_by`,
      [key, enabled, updatedBy],
    );
    this.invalidate();
    return { previous };
  }

  invalidate(): void {
    this.snapshot = undefined;
  }

  private resolve(key: FeatureFlagKey, rows: Map<string, StoredFlag>): FeatureFlagState {
    const stored = rows.get(key);
    const description = KNOWN_FEATURE_FLAGS[key].description;
    if (stored) {
      return { key, enabled: stored.enabled, description, source: 'stored', updatedAt: new Date(stored.updated_at).toISOString() };
    }
    return { key, enabled: this.defaultValue(key), description, source: key in this.bootDefaults ? 'boot-default' : 'built-in', updatedAt: null };
  }

  /** The value while nothing is stored: the FEATURE_FLAGS boot default, else the built-in one. */
  private defaultValue(key: FeatureFlagKey): boolean {
    return key in this.bootDefaults ? this.bootDefaults[key] : KNOWN_FEATURE_FLAGS[key].defaultEnabled;
  }

  private async rows(): Promise<Map<string, StoredFlag>> {
    if (this.snapshot && this.now() - this.snapshot.at < this.maxAgeMs) return this.snapshot.rows;
    this.inflight ??= this.load().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async load(): Promise<Map<string, StoredFlag>> {
    const startedAt = this.now();
    const result = await this.orm.em.fork().execute<StoredFlag[]>('SELECT key, enabled, updated_at FROM feature_flags');
    const rows = new Map(result.map((row) => [row.key, row]));
    this.snapshot = { at: startedAt, rows };
    return rows;
  }
}
