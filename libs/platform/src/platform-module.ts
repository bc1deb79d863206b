import type { PlatformModule } from './database/migration-order';
import { FeatureFlag } from './feature-flags/feature-flag.entity';
import { platformMigrations } from './migrations';

export const platformModule: PlatformModule = {
  name: 'platform',
  entities: [FeatureFlag],
  migrations: platformMigrations,
};
