import { platformModule, type PlatformModule } from '@mrp/platform';
import { authzModule } from '@mrp/authz';
import { eventsModule } from '@mrp/events';
import { notificationsModule } from '@mrp/notifications';
import { dataModelsModule } from '@mrp/data-models';
import { automationsModule } from '@mrp/automations';
import { viewsModule } from '@mrp/views';
import { runtimeModule } from './runtime-module';

/** Every lib's tables; each module's migrations apply after those of the modules whose tables it requires. */
export const ALL_MODULES: readonly PlatformModule[] = [
  platformModule,
  authzModule,
  eventsModule,
  notificationsModule,
  dataModelsModule,
  automationsModule,
  viewsModule,
  runtimeModule,
];
