/** The q-quantile of the samples (nearest rank), e.g. 0.5 for the median. */
export function percentile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
