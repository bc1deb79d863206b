import { randomUUID } from 'node:crypto';

export interface Write {
  title: string;
  recordId: string;
  /** When the 201 came back. */
  at: number;
  phase: string;
}

export interface WriterFigures {
  writes: Write[];
  requests: number;
  /** Answers and failures by kind: `201`, `503`, `connection refused`... */
  byKind: Map<string, number>;
  /** Every answer that was neither 201 nor 503, with its body. */
  unexpected: Array<{ status: number; body: string }>;
  /** Every answer and failure in the order they came, with when: the error rate of any window. */
  outcomes: Array<{ at: number; kind: string }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writers creating records through /api/v1, each under its own Idempotency-Key, retrying one
 * that got no answer or a 503 with the same key (as the docs tell a client to) until it lands.
 * `phase()` labels each write with the fault under way when it landed.
 */
export function startWriters(options: { count: number; url: () => string; token: string; modelKey: string; phase: () => string; titlePrefix?: string }) {
  const figures: WriterFigures = { writes: [], requests: 0, byKind: new Map(), unexpected: [], outcomes: [] };
  const count = (kind: string) => {
    figures.byKind.set(kind, (figures.byKind.get(kind) ?? 0) + 1);
    figures.outcomes.push({ at: Date.now(), kind });
  };
  let running = true;

  async function writeOnce(title: string): Promise<void> {
    const key = randomUUID();
    for (;;) {
      figures.requests += 1;
      let response: Response;
      try {
        response = await fetch(`${options.url()}/api/v1/models/${options.modelKey}/records`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${options.token}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
          body: JSON.stringify({ data: { title } }),
          signal: AbortSignal.timeout(15_000),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        count(cause?.code === 'ECONNREFUSED' ? 'connection refused' : cause?.code === 'ECONNRESET' || cause?.code === 'UND_ERR_SOCKET' ? 'connection reset' : 'no answer');
        await sleep(100);
        continue;
      }
      const body = await response.text();
      count(String(response.status));
      if (response.status === 201) {
        figures.writes.push({ title, recordId: (JSON.parse(body) as { id: string }).id, at: Date.now(), phase: options.phase() });
        return;
      }
      if (response.status !== 503) figures.unexpected.push({ status: response.status, body });
      await sleep(response.status === 503 ? 100 : 200);
    }
  }

  const done = Promise.all(
    Array.from({ length: options.count }, async (_writer, writer) => {
      for (let n = 0; running; n++) await writeOnce(`${options.titlePrefix ?? 'writer'} ${writer} write ${n}`);
    }),
  );
  return {
    figures,
    async stop(): Promise<WriterFigures> {
      running = false;
      await done;
      return figures;
    },
  };
}
