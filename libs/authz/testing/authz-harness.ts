import { randomUUID } from 'node:crypto';
import {
  FeatureFlagStore,
  ProcedureRegistry,
  invokeProcedure,
  platformModule,
  systemPrincipal,
  type Principal,
} from '@mrp/platform';
import { createTestOrm, silentLogger, type TestOrm } from '@mrp/platform/testing';
import { authzModule } from '../src/authz-module';
import type { UserNotifier } from '../src/notifier/user-notifier';
import { createAuthzProcedures } from '../src/procedures/authz-procedures';
import { apiKeyProcedures } from '../src/api-keys/api-key-procedures';
import { resolveSessionPrincipal } from '../src/session/resolve-session-principal';
import type { SessionClaims } from '../src/session/session-verifier';
import { RowAccessRoleSet } from './row-access-role-set';

import { RecordingEventDispatcher as RecordingDispatcher } from '@mrp/platform/testing';

export { RecordingDispatcher };

export const ADMIN_EMAIL = 'ops@platform.test';

export interface AuthzHarness {
  db: TestOrm;
  events: RecordingDispatcher;
  flags: FeatureFlagStore;
  /** The roles the tests treat as granting row access (none until a test adds one). */
  rowAccessRoles: RowAccessRoleSet;
  /** A fresh human identity; the user row is provisioned on its first call. */
  person(label: string): SessionClaims;
  /** Resolves the principal from live rows, as the /rpc door does for every call. */
  principal(who: SessionClaims, organizationId?: string | null): Promise<Principal>;
  /** Runs a procedure as `who` in `organizationId`, through invokeProcedure. */
  call<T = Record<string, unknown>>(name: string, input: unknown, who: SessionClaims, organizationId?: string | null): Promise<T>;
  /** Runs a procedure as the system principal of `task`, holding exactly `permissions`, as a scheduled task does. */
  system<T = Record<string, unknown>>(name: string, input: unknown, task: string, permissions: readonly string[]): Promise<T>;
  /** Runs raw SQL outside any procedure (fixtures and assertions). */
  sql<T extends object = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function createAuthzHarness(options: { notifier?: UserNotifier } = {}): Promise<AuthzHarness> {
  const db = await createTestOrm([platformModule, authzModule]);
  const flags = new FeatureFlagStore(db.orm, {}, 0);
  const rowAccessRoles = new RowAccessRoleSet();
  const registry = new ProcedureRegistry([...createAuthzProcedures({ flags, notifier: options.notifier, rowAccessRoles }), ...apiKeyProcedures]);
  const events = new RecordingDispatcher();
  const platformAdminEmails = new Set([ADMIN_EMAIL]);

  const principal = (who: SessionClaims, organizationId: string | null = null) =>
    resolveSessionPrincipal(db.orm.em.fork(), who, { organizationId, platformAdminEmails, dispatcher: events });

  return {
    db,
    events,
    flags,
    rowAccessRoles,
    person: (label) => ({ sub: randomUUID(), email: `${label}-${randomUUID().slice(0, 8)}@example.test`, name: label }),
    principal,
    async call(name, input, who, organizationId = null) {
      return invokeProcedure(
        registry.require(name),
        input,
        { em: db.orm.em.fork(), principal: await principal(who, organizationId), correlationId: `test-${name}` },
        { dispatcher: events, logger: silentLogger, flags },
      );
    },
    system: (name, input, task, permissions) =>
      invokeProcedure(
        registry.require(name),
        input,
        { em: db.orm.em.fork(), principal: systemPrincipal(task, { permissions }), correlationId: `test-${task}` },
        { dispatcher: events, logger: silentLogger, flags },
      ),
    sql: <T extends object>(query: string, params: unknown[] = []) => db.orm.em.fork().execute<T[]>(query, params),
    close: () => db.close(),
  };
}
