/** Retries `attempt` until it stops throwing (a page that settles after a render, a delivery on its way), then returns its value. */
export async function eventually<T>(what: string, attempt: () => Promise<T>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what}: still failing after ${timeoutMs} ms: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
