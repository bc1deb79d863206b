import { platformModule, type PlatformModule } from '@mrp/platform';
import { authzModule } from '@mrp/authz';
import { eventsModule } from '@mrp/events';

/** Every lib's tables, in the order their migrations depend on each other. */
export const ALL_MODULES: readonly PlatformModule[] = [platformModule, authzModule, eventsModule];
