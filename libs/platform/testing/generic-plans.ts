import type { Client } from 'pg';
import type { PreparedStatement } from '../src/database/driver/prepared-statement';

export { definedPreparedStatements } from '../src/database/driver/prepared-statement';

/** What a plan reads: the indexes it uses (conflict arbiters included) and the tables it scans whole. */
export interface PlanReads {
  indexes: string[];
  sequentialScans: string[];
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Conflict Arbiter Indexes'?: string[];
  Plans?: PlanNode[];
}

function collect(node: PlanNode, reads: PlanReads): void {
  if (node['Index Name']) reads.indexes.push(node['Index Name']);
  reads.indexes.push(...(node['Conflict Arbiter Indexes'] ?? []));
  if (node['Node Type'] === 'Seq Scan') reads.sequentialScans.push(node['Relation Name'] ?? '?');
  for (const child of node.Plans ?? []) collect(child, reads);
}

/**
 * The generic plan PostgreSQL keeps for `statement` on this connection (`plan_cache_mode =
 * force_generic_plan`: the plan a prepared statement settles on after five executions, built
 * without its parameters' values), and what it reads. Works on PostgreSQL 15 (no EXPLAIN
 * GENERIC_PLAN): the statement is prepared under a probe name and explained with NULLs.
 */
export async function genericPlanReads(client: Client, statement: PreparedStatement): Promise<PlanReads> {
  await client.query('SET plan_cache_mode = force_generic_plan');
  await client.query(`PREPARE plan_probe AS ${statement.text}`);
  try {
    const { rows } = await client.query<{ count: number }>(
      `SELECT cardinality(parameter_types) AS count FROM pg_prepared_statements WHERE name = 'plan_probe'`,
    );
    const nulls = Array.from({ length: rows[0].count }, () => 'NULL').join(', ');
    const explained = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (FORMAT JSON) EXECUTE plan_probe${nulls ? `(${nulls})` : ''}`,
    );
    const reads: PlanReads = { indexes: [], sequentialScans: [] };
    collect(explained.rows[0]['QUERY PLAN'][0].Plan, reads);
    reads.indexes = [...new Set(reads.indexes)].sort();
    return reads;
  } finally {
    await client.query('DEALLOCATE plan_probe');
    await client.query('RESET plan_cache_mode');
  }
}
