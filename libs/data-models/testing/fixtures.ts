import { randomBytes } from 'node:crypto';
import type { Principal } from '@mrp/platform';
import { invokeProcedure, newId, ProcedureRegistry } from '@mrp/platform';
import { createTestOrm, flagsAllOff, silentLogger, testPrincipal, type TestOrm } from '@mrp/platform/testing';
import { platformModule } from '@mrp/platform';
import { ALL_PERMISSIONS, authzModule, type NotificationMessage, type UserNotifier } from '@mrp/authz';
import { createDataModelsProcedures, dataModelsModule } from '../src';

import { RecordingEventDispatcher as RecordingDispatcher } from '@mrp/platform/testing';

export { RecordingDispatcher };

/** A notification a procedure asked for (no notifications lib here: nobody is filtered out). */
export interface SentNotification {
  userIds: readonly string[];
  message: NotificationMessage;
}

export interface TestOrganization {
  id: string;
  /** Role ids by key: the four built-in ones plus whatever `extraRoles` named. */
  roles: Record<string, string>;
}

export interface DataModelsTestEnv {
  db: TestOrm;
  dispatcher: RecordingDispatcher;
  /** Records what the procedures notify, as they ask (a rolled-back call's notifications stay listed). */
  notifier: UserNotifier;
  notifications: SentNotification[];
  /** This environment's own random cursor secret, as a deployment has its own. */
  cursorSecret: string;
  call<T>(name: string, input: unknown, principal: Principal): Promise<T>;
  createOrganization(extraRoles?: string[]): Promise<TestOrganization>;
  /** A principal in the organization with every permission unless told otherwise. */
  principal(organization: TestOrganization, options?: { roles?: string[]; permissions?: readonly string[]; userId?: string }): Principal;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function createDataModelsTestEnv(): Promise<DataModelsTestEnv> {
  const db = await createTestOrm([platformModule, authzModule, dataModelsModule]);
  const cursorSecret = randomBytes(32).toString('base64url');
  const notifications: SentNotification[] = [];
  const notifier: UserNotifier = {
    async notify(_scope, userIds, message) {
      notifications.push({ userIds: [...userIds], message });
      return [];
    },
  };
  const registry = new ProcedureRegistry(createDataModelsProcedures({ cursorSecret, notifier }));
  const dispatcher = new RecordingDispatcher();
  const sql = <T>(text: string, params: unknown[] = []) => db.orm.em.fork().getConnection().execute<T[]>(text, params);

  return {
    db,
    dispatcher,
    notifier,
    notifications,
    cursorSecret,
    sql,
    call: <T>(name: string, input: unknown, principal: Principal) =>
      invokeProcedure<T>(registry.require(name), input, { em: db.orm.em.fork(), principal, correlationId: `test-${newId()}` }, {
        dispatcher,
        logger: silentLogger,
        flags: flagsAllOff,
      }),
    async createOrganization(extraRoles = []) {
      const id = newId();
      await sql(`INSERT INTO organizations (id, name, slug, created_by) VALUES (?, ?, ?, 'user-1')`, [id, `Org ${id}`, `org-${id}`]);
      const roles: Record<string, string> = {};
      for (const key of ['owner', 'admin', 'member', 'read-only', ...extraRoles]) {
        roles[key] = newId();
        await sql(`INSERT INTO roles (id, organization_id, key, name) VALUES (?, ?, ?, ?)`, [roles[key], id, key, key]);
      }
      return { id, roles };
    },
    principal(organization, options = {}) {
      return testPrincipal({
        userId: options.userId ?? 'user-1',
        organizationId: organization.id,
        roleIds: (options.roles ?? ['owner']).map((key) => organization.roles[key]),
        permissions: new Set(options.permissions ?? ALL_PERMISSIONS),
      });
    },
    close: () => db.close(),
  };
}
