import { readdirSync, readFileSync } from 'node:fs';
import { Client } from 'pg';
import type { ThrowawayDatabase } from './throwaway-database';

/*
 * CPU time and memory of other processes, read from /proc (Linux). utime and stime are in clock
 * ticks (USER_HZ, 100 on Linux), so a figure is exact to 10 ms: measure over seconds, not requests.
 */

interface ProcessStat {
  pid: number;
  parentPid: number;
  name: string;
  cpuMs: number;
  rssBytes: number;
}

const PAGE_SIZE = 4096;

function readStat(pid: number | string): ProcessStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // the process ended while we looked
  }
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    pid: Number(pid),
    parentPid: Number(fields[1]),
    name,
    cpuMs: (Number(fields[11]) + Number(fields[12])) * 10,
    rssBytes: Number(fields[21]) * PAGE_SIZE,
  };
}

function allStats(): ProcessStat[] {
  const stats: ProcessStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat) stats.push(stat);
  }
  return stats;
}

/** The process and every descendant (an api started with workers forks them). */
export function processTree(rootPid: number): ProcessStat[] {
  const stats = allStats();
  const inTree = new Set([rootPid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const stat of stats) {
      if (!inTree.has(stat.pid) && inTree.has(stat.parentPid)) {
        inTree.add(stat.pid);
        grew = true;
      }
    }
  }
  return stats.filter((stat) => inTree.has(stat.pid));
}

/** CPU ms by pid of a process tree, to subtract later. */
export function treeCpu(rootPid: number): Map<number, number> {
  return new Map(processTree(rootPid).map((stat) => [stat.pid, stat.cpuMs]));
}

export function treeRssBytes(rootPid: number): number {
  return processTree(rootPid).reduce((sum, stat) => sum + stat.rssBytes, 0);
}

/** What the processes alive now spent since `before` (processes that appeared count from zero). */
export function cpuSince(now: Map<number, number>, before: Map<number, number>): number {
  let spent = 0;
  for (const [pid, ms] of now) spent += ms - (before.get(pid) ?? 0);
  return spent;
}

/**
 * Which PostgreSQL processes this run may charge: every process of the embedded server (its
 * postmaster and the children it forks), or, on a shared DATABASE_URL server, the backends
 * connected to the benchmark's database at the moment of asking.
 */
export async function postgresCpu(database: ThrowawayDatabase): Promise<Map<number, number>> {
  if (database.postmasterPid !== null) return treeCpu(database.postmasterPid);
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    const cpu = new Map<number, number>();
    for (const { pid } of rows) {
      const stat = readStat(pid);
      if (stat) cpu.set(pid, stat.cpuMs);
    }
    return cpu;
  } finally {
    await client.end();
  }
}
