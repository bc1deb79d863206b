import type { EntityManager } from '@mikro-orm/postgresql';
import { createJobQueue, newId, platformModule, type JobQueue } from '@mrp/platform';
import { authzModule } from '@mrp/authz';
import { createTestOrm, silentLogger, type TestOrm } from '@mrp/platform/testing';
import { automationsModule } from '../src/automations-module';

/** A migrated database with the automation tables and its job queue; organizations, owners and automations made with plain SQL. */
export interface RunTestBed {
  db: TestOrm;
  jobs: JobQueue;
  em(): EntityManager;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  organization(): Promise<string>;
  /** An enabled event automation of the organization. */
  eventAutomation(organizationId: string, options?: { maxRunsPerMinute?: number }): Promise<string>;
  close(): Promise<void>;
}

export async function createRunTestBed(): Promise<RunTestBed> {
  const db = await createTestOrm([platformModule, authzModule, automationsModule]);
  const em = () => db.orm.em.fork() as EntityManager;
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => em().execute<T[]>(text, params);
  const jobs = createJobQueue({ orm: db.orm, listenUrl: db.database.directUrl, logger: silentLogger });
  const owner = 'usr_run_bounds_owner';
  await sql(`INSERT INTO users (id, email, kind, display_name) VALUES (?, 'owner@example.test', 'HUMAN', 'Owner')`, [owner]);
  return {
    db,
    jobs,
    em,
    sql,
    async organization() {
      const id = newId();
      await sql(`INSERT INTO organizations (id, name, slug, created_by) VALUES (?, 'Org', ?, ?)`, [id, `org-${id}`, owner]);
      return id;
    },
    async eventAutomation(organizationId, options = {}) {
      const id = newId();
      await sql(
        `INSERT INTO automations (id, organization_id, name, owner_id, trigger_type, event_pattern, actions, max_runs_per_minute, created_by)
         VALUES (?, ?, 'Automation', ?, 'event', 'data-models.*', '[]', ?, ?)`,
        [id, organizationId, owner, options.maxRunsPerMinute ?? 60, owner],
      );
      return id;
    },
    async close() {
      await jobs.stop();
      await db.close();
    },
  };
}
