/**
 * The health checks' one question to the database, asked at most once at a time per process:
 * callers that come while it is under way share its answer. The checks need no credentials, so
 * without this a flood of them could hold every pooled connection the api's requests need.
 */
export class DatabaseProbe {
  private underWay: Promise<boolean> | undefined;

  /** `check` answers whether the database can be reached, and never rejects. */
  constructor(private readonly check: () => Promise<boolean>) {}

  reachable(): Promise<boolean> {
    this.underWay ??= this.check().finally(() => {
      this.underWay = undefined;
    });
    return this.underWay;
  }
}
