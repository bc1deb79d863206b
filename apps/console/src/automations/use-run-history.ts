import { useEffect, useMemo } from 'react';
import type { AutomationRun } from '../api/automation-types';
import { useKeysetPages } from '../api/use-keyset-pages';

export const RUN_PAGE_SIZE = 25;
const QUEUED_REFRESH_MS = 2000;

/**
 * An automation's runs, newest first, a page at a time. While a run of the first page is queued
 * the page is read again until it ends; once older pages are shown it is left for Refresh.
 */
export function useRunHistory(automationId: string) {
  const input = useMemo(() => ({ automationId, limit: RUN_PAGE_SIZE }), [automationId]);
  const runs = useKeysetPages('automations.runs.list', input);
  const { refresh } = runs;
  const anyQueued = runs.items.some((run) => run.status === 'queued');
  const olderPagesShown = runs.items.length > RUN_PAGE_SIZE;
  useEffect(() => {
    if (!anyQueued || olderPagesShown) return;
    const timer = setTimeout(() => void refresh(), QUEUED_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [anyQueued, olderPagesShown, refresh, runs.items]);
  return runs;
}

/** How long a finished run took. */
export function runDuration(run: Pick<AutomationRun, 'startedAt' | 'finishedAt'>): string {
  if (!run.startedAt || !run.finishedAt) return '—';
  return `${Math.max(0, Date.parse(run.finishedAt) - Date.parse(run.startedAt))} ms`;
}
