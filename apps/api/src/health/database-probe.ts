/**
 * The health checks' one question to the database, asked at most once at a time per process:
 * callers that come while it is under way share it. The checks need no credentials, so without
 * this a flood of them could hold every pooled connection the api's requests need. Each caller
 * waits at most `timeoutMs` for the answer and is told "unreachable" past it; the question itself
 * goes on until the database answers or the connection's own limits end it, and no second one
 * starts meanwhile, however long the database stalls.
 */
export class DatabaseProbe {
  private underWay: Promise<boolean> | undefined;

  /** `ask` answers whether the database answered, and never rejects. */
  constructor(
    private readonly ask: () => Promise<boolean>,
    private readonly timeoutMs: number,
  ) {}

  async reachable(): Promise<boolean> {
    this.underWay ??= this.ask().finally(() => {
      this.underWay = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.timeoutMs);
    });
    try {
      return await Promise.race([this.underWay, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
