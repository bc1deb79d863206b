import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlTextArray, type EventEnvelope, type JobQueue } from '@mrp/platform';
import { eventMatches, RouteCache, type EventPersister } from '@mrp/events';
import { AUTOMATION_RUNS_QUEUE, enqueueRuns, type QueuedRun } from './run-queue';

interface EventAutomation {
  id: string;
  organization_id: string;
  event_pattern: string;
  include_own_runs: boolean;
}

/**
 * A notification is one person's mail: its title may quote what only they may read (a reminder
 * names a record), so no automation of the organization is fed it.
 */
const isPersonal = (event: EventEnvelope) => event.type.startsWith('notification.');

const DEFINITION_CHANGES = new Set(['automation.created', 'automation.updated', 'automation.deleted']);

/** Whether an automation's own runs are among the causes of the event (anywhere up its chain). */
const causedBy = (event: EventEnvelope, automationId: string) => event.causedBy?.automationChain.includes(automationId) ?? false;

/**
 * The event trigger's outbox: inside the transaction of the change that emitted the events, one
 * run is queued per (event, matching enabled event automation of the event's organization), the
 * same durable way webhook deliveries are, so no committed event is missed and a rolled-back
 * change triggers nothing; their jobs go with the COMMIT, announced once it is done (decision 89).
 * An automation ignores events its own runs caused unless it opts in.
 * The run keeps the event and the chain of automations behind it (the chain depth limit is the
 * runner's to apply, so a stopped chain is recorded as a failed run); the queue-time bounds (rate,
 * runs per chain, the organization's queue) are enqueueRuns'.
 */
export interface AutomationOutbox extends EventPersister {
  /** The enabled event automations by organization, kept while the process hears their changes. */
  routes: RouteCache<EventAutomation>;
}

export function createAutomationOutbox(jobs: JobQueue): AutomationOutbox {
  // The events whose transaction queued runs; held weakly, so a rolled-back one is simply forgotten.
  const queuedRuns = new WeakSet<EventEnvelope>();
  const routes = new RouteCache<EventAutomation>({
    load: (em, organizationIds) =>
      em.execute<EventAutomation[]>(
        `SELECT id, organization_id, event_pattern, include_own_runs FROM automations
          WHERE enabled AND trigger_type = 'event' AND organization_id = ANY(?::uuid[])`,
        [sqlTextArray(organizationIds)],
      ),
    organizationOf: (automation) => automation.organization_id,
    idOf: (automation) => automation.id,
  });
  return {
    routes,
    // The definitions' own events say which organization's automations changed, here, at once.
    committed(events) {
      for (const event of events) {
        if (DEFINITION_CHANGES.has(event.type) && event.organizationId) routes.forget(event.organizationId);
      }
      if (events.some((event) => queuedRuns.has(event))) jobs.announce([AUTOMATION_RUNS_QUEUE]);
    },
    async persist(em: EntityManager, emitted: readonly EventEnvelope[]) {
      const events = emitted.filter((event) => !isPersonal(event));
      const organizationIds = [...new Set(events.map((event) => event.organizationId).filter((id): id is string => id !== undefined))];
      if (organizationIds.length === 0) return;
      const automations = await routes.routesFor(em, organizationIds);
      if (automations.length === 0) return;
      const runs: QueuedRun[] = [];
      for (const event of events) {
        for (const automation of automations) {
          if (automation.organization_id !== event.organizationId || !eventMatches(automation.event_pattern, event)) continue;
          if (!automation.include_own_runs && causedBy(event, automation.id)) continue;
          queuedRuns.add(event);
          runs.push({
            automationId: automation.id,
            organizationId: automation.organization_id,
            trigger: 'event',
            event,
            chain: event.causedBy?.automationChain ?? [],
            causedByRunId: event.causedBy?.automationRunId,
          });
        }
      }
      await enqueueRuns(jobs, em, runs, 'after-commit');
    },
  };
}
