import { createLogger } from '../src/logging/logger';
import type { Principal } from '../src/procedures/principal';
import type { InvocationDeps } from '../src/procedures/invoke';

export const silentLogger = createLogger({ name: 'test', level: process.env.LOG_LEVEL ?? 'silent' });

export function testPrincipal(overrides: Partial<Principal> = {}): Principal {
  return {
    userId: 'user-1',
    kind: 'HUMAN',
    email: 'user@example.com',
    displayName: 'Test User',
    isPlatformAdmin: false,
    organizationId: null,
    roleIds: [],
    permissions: new Set(),
    credential: { type: 'session' },
    ...overrides,
  };
}

/** For suites whose procedures sit behind no flag: every flag reads as off. */
export const flagsAllOff: InvocationDeps['flags'] = { isEnabled: async () => false };
