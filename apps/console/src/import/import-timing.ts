/**
 * Times a step of an import with the User Timing API (`import:parse`, `import:check`,
 * `import:send`): the browser's performance panel shows them, and the import benchmark reads them.
 */
export async function timed<T>(step: 'parse' | 'check' | 'send', work: () => T | Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    performance.measure(`import:${step}`, { start, end: performance.now() });
  }
}

/** `timed` for work that is not asynchronous, so its result is there at once. */
export function timedNow<T>(step: 'check', work: () => T): T {
  const start = performance.now();
  try {
    return work();
  } finally {
    performance.measure(`import:${step}`, { start, end: performance.now() });
  }
}
