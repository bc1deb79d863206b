import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scheduledTasks } from './scheduled-tasks';
import { scheduleVariable } from './task-schedules';

const OPERATIONS = join(__dirname, '..', '..', '..', 'docs', 'operations.md');

interface DocumentedTask {
  schedule: string;
  route: string;
  variable: string;
}

/** The rows of the table under "## Scheduled tasks", by task name. */
function documentedTasks(): Map<string, DocumentedTask> {
  const text = readFileSync(OPERATIONS, 'utf8');
  const section = text.split(/^## /m).find((part) => part.startsWith('Scheduled tasks\n')) ?? '';
  const rows = new Map<string, DocumentedTask>();
  for (const line of section.split('\n').filter((candidate) => candidate.startsWith('| `'))) {
    const [name, schedule, route, variable] = line
      .split('|')
      .slice(1, 5)
      .map((cell) => cell.trim().replace(/^`|`$/g, ''));
    rows.set(name, { schedule, route, variable });
  }
  return rows;
}

describe('docs/operations.md', () => {
  it('lists every scheduled task with its default schedule, route and override variable', () => {
    const documented = documentedTasks();
    const mismatches = scheduledTasks().flatMap((task) => {
      const row = documented.get(task.name);
      if (!row) return [`${task.name}: missing from the table under "## Scheduled tasks"`];
      const expected = { schedule: task.schedule, route: `/cron/${task.name}`, variable: scheduleVariable(task.name) };
      return (Object.keys(expected) as Array<keyof DocumentedTask>)
        .filter((column) => row[column] !== expected[column])
        .map((column) => `${task.name}: ${column} is "${row[column]}" in the docs, "${expected[column]}" in code`);
    });
    expect(mismatches).toEqual([]);
  });
});
