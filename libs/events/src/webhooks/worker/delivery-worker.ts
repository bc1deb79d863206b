import { performance } from 'node:perf_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue, Logger } from '@mrp/platform';
import {
  DELIVERY_JOB_EXPIRY_SECONDS,
  DELIVERY_QUEUES,
  claimDeliveries,
  deliveryJob,
  releaseClaims,
  renewClaims,
  sequenceDeliveries,
  type ClaimedDelivery,
  type DeliveryJobData,
} from '../deliveries/delivery-queue';
import type { AttemptResult } from '../deliveries/record-attempts';
import { parseRetryAfter } from '../deliveries/retry-schedule';
import { NO_PLAINTEXT_SECRET, NoPlaintextSecretError, resolveSigningSecrets, type WebhookSecretResolver } from '../secrets/secret-resolver';
import { signWebhookPayload } from '../signing/sign-webhook-payload';
import { WEBHOOK_HEADERS } from '../signature/webhook-headers';
import { STANDARD_WEBHOOK_HEADERS } from '../signature/standard-webhooks';
import { signStandardWebhook } from '../signing/sign-standard-webhook';
import { WebhookSendError } from '../url-safety/webhook-send-error';
import type { WebhookSender } from '../url-safety/webhook-sender';

export interface DeliveryWorkerOptions {
  /** Jobs one fetch takes at most; by default half an endpoint's window. */
  batchSize?: number;
  /** Attempts in flight to one endpoint at most, so a slow receiver cannot take every slot. */
  perEndpointConcurrency?: number;
  /** Deliveries held at most (waiting for their endpoint or in flight), shared among the queues with work. */
  maxInFlight?: number;
  /** How long a claim holds a delivery unless renewed (`DELIVERY_LEASE_SECONDS`); renewed every third of it. */
  leaseSeconds: number;
  /** Every queue is looked at this often once started: delayed jobs come due, a wake-up may be lost. */
  pollIntervalMs?: number;
  /** The queues it sends from; all of them by default. */
  queues?: readonly string[];
}

/** What the worker needs of the job queue: it paces its own fetching (`DeliveryWorker`). */
export type DeliveryJobs = Pick<JobQueue, 'fetch' | 'complete' | 'fail' | 'onDue' | 'enqueueAtCommit'>;

/** What recording a batch of attempts tells the worker. */
export interface RecordedAttempts {
  /** The soonest retry recorded, in seconds from now; null: none. */
  nextRetryInSeconds: number | null;
  /** Deliveries about a record set free by one before them settling (their jobs are queued). */
  released: number;
}

export interface DeliveryWorkerDeps {
  jobs: DeliveryJobs;
  /** A fresh ORM context for each claim (never the global one). */
  newContext(): EntityManager;
  sender: WebhookSender;
  secretResolver: WebhookSecretResolver;
  /**
   * Records attempts through the `webhooks.deliveries.recordAttempts` procedure, as a system
   * principal, completing their jobs in the same transaction.
   */
  recordAttempts(results: AttemptResult[], jobs: Array<{ queue: string; ids: string[] }>): Promise<RecordedAttempts>;
  logger: Logger;
  now?: () => Date;
}

const RECORD_BATCH = 500;
/**
 * How long the first result of a batch waits for others before it is recorded, unless a fetch's
 * worth has finished: sends end a few milliseconds apart, and one transaction for many attempts
 * costs about what one for a single attempt does.
 */
const RECORD_GATHER_MS = 10;
/** An operator's resolver (a vault) that hangs must not hold the worker's slots for ever. */
const RESOLVER_TIMEOUT_MS = 5000;

function withinTime<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Text PostgreSQL can keep (no NUL, no lone surrogate), whatever a receiver sent: one bad byte must not lose a batch of results. */
const storable = (text: string) =>
  text.replaceAll('\0', '\uFFFD').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/**
 * The signature and timestamp headers of the endpoint's scheme: the contract's, or Standard
 * Webhooks' (whose message id is the delivery's id, the same on every attempt).
 */
async function signatureHeaders(delivery: ClaimedDelivery, secrets: string[], timestamp: number): Promise<Record<string, string>> {
  if (delivery.endpoint.signing === 'standard-webhooks') {
    return {
      [STANDARD_WEBHOOK_HEADERS.id]: delivery.id,
      [STANDARD_WEBHOOK_HEADERS.timestamp]: String(timestamp),
      [STANDARD_WEBHOOK_HEADERS.signature]: await signStandardWebhook({ secrets, id: delivery.id, timestamp, body: delivery.body }),
    };
  }
  return {
    [WEBHOOK_HEADERS.signature]: await signWebhookPayload({ secrets, timestamp, body: delivery.body }),
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
  };
}

/**
 * Claimed deliveries per endpoint (waiting or in flight), as a multiple of its concurrency: enough
 * waiting to keep its slots busy while the next fetch is under way.
 */
const WINDOW_FACTOR = 4;

/** What the worker holds for a claimed delivery until its attempt is recorded. */
interface HeldDelivery {
  queue: string;
  jobIds: string[];
  /** The attempt it was claimed for (the heartbeat renews that claim only). */
  attempt: number;
}

/**
 * Sends webhook deliveries from the jobs of the delivery queues (decision 154), signed, with
 * bounded concurrency overall and per endpoint, its slots shared among organizations.
 *
 * Each organization's deliveries come through one of the queues. The worker fetches from the
 * queues with work in turn, each up to its share of the slots: with one queue busy, three
 * quarters of them (the rest stay free for an organization whose first delivery comes next);
 * with n queues, a nth each. So no organization holds more than its share while others wait,
 * and one that waits starts within one fetch.
 *
 * A fetched job's delivery is claimed (`claimDeliveries`) and waits in its endpoint's window for
 * one of its slots; a queue whose endpoint has half a window waiting is not fetched from until it
 * drains. The worker renews its claims every third of their lease while it lives (a heartbeat).
 * Results are recorded in batches, and the jobs completed once they are: a worker that dies
 * leaves its jobs to expire, and they run again elsewhere once its claims ran out.
 *
 * `start()` listens for due jobs and polls; `wake()` looks at every queue now; `drain()` delivers
 * what is due and returns how many it attempted (the sweep). Nothing here decides what an outcome
 * means for the delivery or the endpoint: the recordAttempts procedure does.
 */
export class DeliveryWorker {
  private readonly batchSize: number;
  private readonly perEndpoint: number;
  private readonly window: number;
  private readonly capacity: number;
  private readonly queues: readonly string[];
  /** Claimed, not yet sent, per endpoint. */
  private readonly waiting = new Map<string, ClaimedDelivery[]>();
  private readonly inFlightByEndpoint = new Map<string, number>();
  private readonly queueOfEndpoint = new Map<string, string>();
  private readonly running = new Set<Promise<void>>();
  /** Every delivery claimed and not yet recorded or given back. */
  private readonly held = new Map<string, HeldDelivery>();
  private readonly heldByQueue = new Map<string, number>();
  /** Queues that may have due jobs: told so, or their last fetch took all it asked for. */
  private readonly wanting = new Set<string>();
  /** How often each queue was said to have due jobs: one said during a fetch may be for a job that fetch could not see. */
  private readonly toldDue = new Map<string, number>();
  private rotation = 0;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private stopped = false;
  private results: AttemptResult[] = [];
  private recording: Promise<void> | null = null;
  private attempted = 0;
  /** While draining: how many more deliveries may be claimed. */
  private budget = Number.POSITIVE_INFINITY;
  private readonly retryTimers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private poll?: NodeJS.Timeout;
  private heartbeat?: NodeJS.Timeout;
  private unsubscribe?: () => void;

  constructor(
    private readonly deps: DeliveryWorkerDeps,
    private readonly options: DeliveryWorkerOptions,
  ) {
    this.perEndpoint = options.perEndpointConcurrency ?? 16;
    this.window = this.perEndpoint * WINDOW_FACTOR;
    this.batchSize = options.batchSize ?? this.window / 2;
    this.capacity = options.maxInFlight ?? 100;
    this.queues = options.queues ?? DELIVERY_QUEUES;
  }

  /** Listens for due jobs of its queues and looks at all of them every poll interval, until stopped. */
  start(): void {
    if (this.unsubscribe || this.stopped) return;
    this.unsubscribe = this.deps.jobs.onDue(this.queues, (queue) => this.want([queue]));
    this.poll = setInterval(() => this.wake(), this.options.pollIntervalMs ?? 2000);
    this.poll.unref();
    this.wake();
  }

  /** Looks at every queue now. */
  wake(): void {
    this.want(this.queues);
  }

  private want(queues: Iterable<string>): void {
    for (const queue of queues) {
      this.wanting.add(queue);
      this.toldDue.set(queue, (this.toldDue.get(queue) ?? 0) + 1);
    }
    this.pump();
  }

  /**
   * Delivers what is due now, up to `limit` deliveries (a steady stream of changes must not keep a
   * sweep running for ever), waits for the results to be recorded, and returns how many it attempted.
   */
  async drain(limit = 1000): Promise<number> {
    const before = this.attempted;
    this.budget = limit;
    try {
      this.wake();
      while (this.pumping || this.running.size > 0 || this.recording) {
        await Promise.race([...(this.pumping ? [this.pumping] : []), ...(this.recording ? [this.recording] : []), ...this.running]);
      }
      await this.flushResults();
    } finally {
      this.budget = Number.POSITIVE_INFINITY;
    }
    return this.attempted - before;
  }

  /**
   * Stops fetching, gives back what it claimed but has not sent (its jobs run again at once,
   * elsewhere), lets the attempts in flight finish (each bounded by the send timeout) and records them.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearInterval(this.poll);
    clearInterval(this.heartbeat);
    for (const { timer } of this.retryTimers.values()) clearTimeout(timer);
    this.retryTimers.clear();
    await this.pumping;
    const unsent = [...this.waiting.values()].flat().map((delivery) => delivery.id);
    this.waiting.clear();
    if (unsent.length > 0) {
      try {
        await releaseClaims(this.deps.newContext(), unsent);
        await this.settleJobs(unsent, (queue, ids) => this.deps.jobs.fail(queue, ids, 'the worker stopped before sending'));
      } catch (error) {
        // Their claims and jobs run out instead: sent again a lease later.
        this.deps.logger.warn({ err: error, deliveries: unsent.length }, 'giving back unsent webhook deliveries failed');
      }
    }
    await Promise.all(this.running);
    await this.flushResults();
  }

  /** Settles the jobs of these held deliveries, a call per queue, and forgets them. */
  private async settleJobs(deliveryIds: readonly string[], settle: (queue: string, jobIds: string[]) => Promise<void>): Promise<void> {
    const byQueue = new Map<string, string[]>();
    for (const id of deliveryIds) {
      const held = this.held.get(id);
      if (!held) continue;
      this.held.delete(id);
      this.heldByQueue.set(held.queue, (this.heldByQueue.get(held.queue) ?? 1) - 1);
      byQueue.set(held.queue, [...(byQueue.get(held.queue) ?? []), ...held.jobIds]);
    }
    for (const [queue, jobIds] of byQueue) await settle(queue, jobIds);
  }

  private pump(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.fetchWhileRoom()
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'fetching webhook delivery jobs failed'))
      .finally(() => {
        this.pumping = null;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.pump();
        }
      });
  }

  private heldTotal(): number {
    return this.held.size;
  }

  /** A queue's share of the slots: three quarters alone, a nth of them among n queues with work. */
  private shareOf(queue: string): number {
    const busy = new Set([...this.wanting, ...[...this.heldByQueue].filter(([, count]) => count > 0).map(([name]) => name)]);
    busy.add(queue);
    return busy.size === 1 ? Math.max(1, Math.floor((this.capacity * 3) / 4)) : Math.max(1, Math.floor(this.capacity / busy.size));
  }

  /**
   * An endpoint of the queue has half a window waiting for its slots: fetching more from the queue
   * (the same organization's) would only lengthen that wait, and hold the claims longer.
   */
  private backedUp(queue: string): boolean {
    for (const [endpointId, waiting] of this.waiting) {
      if (waiting.length >= this.window / 2 && this.queueOfEndpoint.get(endpointId) === queue) return true;
    }
    return false;
  }

  private roomFor(queue: string): number {
    if (this.stopped || this.backedUp(queue)) return 0;
    return Math.min(this.batchSize, this.shareOf(queue) - (this.heldByQueue.get(queue) ?? 0), this.capacity - this.heldTotal(), this.budget);
  }

  /** Fetches from the queues with work in turn, each up to its room, until none has room or work. */
  private async fetchWhileRoom(): Promise<void> {
    for (;;) {
      let fetched = false;
      const order = [...this.queues.slice(this.rotation), ...this.queues.slice(0, this.rotation)].filter((queue) => this.wanting.has(queue));
      this.rotation = (this.rotation + 1) % this.queues.length;
      for (const queue of order) {
        const room = this.roomFor(queue);
        if (room <= 0) continue;
        const toldBefore = this.toldDue.get(queue);
        const jobs = await this.deps.jobs.fetch<DeliveryJobData>(queue, room);
        if (jobs.length < room && this.toldDue.get(queue) === toldBefore) this.wanting.delete(queue);
        if (jobs.length === 0) continue;
        fetched = true;
        await this.claim(queue, jobs);
      }
      if (!fetched || this.stopped) return;
    }
  }

  /** Renews every claim held now, every third of the lease, until stopped. */
  private beat(): void {
    if (this.heartbeat || this.stopped) return;
    this.heartbeat = setInterval(() => {
      if (this.held.size === 0) return;
      const claims = new Map([...this.held].map(([id, held]) => [id, held.attempt]));
      renewClaims(this.deps.newContext(), claims, this.options.leaseSeconds).catch((error: unknown) =>
        this.deps.logger.warn({ err: error, claims: claims.size }, 'renewing webhook delivery claims failed; they run out unless the next renewal works'),
      );
    }, (this.options.leaseSeconds * 1000) / 3);
    this.heartbeat.unref();
  }

  /**
   * Claims the deliveries of fetched jobs and starts them. The jobs of deliveries another worker
   * holds are queued again for when its claim would run out; the others have nothing to send.
   */
  private async claim(queue: string, jobs: ReadonlyArray<{ id: string; data: DeliveryJobData }>): Promise<void> {
    const jobsOf = new Map<string, string[]>();
    for (const job of jobs) jobsOf.set(job.data.deliveryId, [...(jobsOf.get(job.data.deliveryId) ?? []), job.id]);
    await sequenceDeliveries(this.deps.newContext());
    const { claimed, held } = await claimDeliveries(this.deps.newContext(), [...jobsOf.keys()], this.options.leaseSeconds);
    const claimedIds = new Set(claimed.map((delivery) => delivery.id));
    const idle = [...jobsOf].filter(([deliveryId]) => !claimedIds.has(deliveryId)).flatMap(([, ids]) => ids);
    if (held.length > 0) {
      await this.deps.jobs.enqueueAtCommit(
        this.deps.newContext(),
        held.map((delivery) => deliveryJob(delivery, DELIVERY_JOB_EXPIRY_SECONDS)),
      );
    }
    if (claimed.length > 0) this.beat();
    for (const delivery of claimed) {
      this.held.set(delivery.id, { queue, jobIds: jobsOf.get(delivery.id) ?? [], attempt: delivery.attempt });
      this.heldByQueue.set(queue, (this.heldByQueue.get(queue) ?? 0) + 1);
      this.queueOfEndpoint.set(delivery.endpointId, queue);
      this.enqueue(delivery);
    }
    // Nothing to send for these now (settled, held back, due later, or another's): their jobs are done.
    if (idle.length > 0) await this.deps.jobs.complete(queue, idle);
  }

  private enqueue(delivery: ClaimedDelivery): void {
    this.budget -= 1;
    const queue = this.waiting.get(delivery.endpointId);
    if (queue) queue.push(delivery);
    else this.waiting.set(delivery.endpointId, [delivery]);
    this.pumpEndpoint(delivery.endpointId);
  }

  /** Starts the endpoint's waiting deliveries while it has free slots. */
  private pumpEndpoint(endpointId: string): void {
    const queue = this.waiting.get(endpointId);
    while (queue && queue.length > 0 && (this.inFlightByEndpoint.get(endpointId) ?? 0) < this.perEndpoint) {
      this.send(queue.shift() as ClaimedDelivery);
    }
    if (queue?.length === 0) this.waiting.delete(endpointId);
  }

  private send(delivery: ClaimedDelivery): void {
    this.attempted += 1;
    const endpointId = delivery.endpointId;
    this.inFlightByEndpoint.set(endpointId, (this.inFlightByEndpoint.get(endpointId) ?? 0) + 1);
    const run = this.attempt(delivery)
      .then((result) => {
        this.queueResult(result);
      })
      .finally(() => {
        const left = (this.inFlightByEndpoint.get(endpointId) ?? 1) - 1;
        if (left > 0) this.inFlightByEndpoint.set(endpointId, left);
        else this.inFlightByEndpoint.delete(endpointId);
        this.running.delete(run);
        this.pumpEndpoint(endpointId);
      });
    this.running.add(run);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<AttemptResult> {
    const startedAt = (this.deps.now ?? (() => new Date()))();
    const started = performance.now();
    const result = (fields: Partial<AttemptResult> & Pick<AttemptResult, 'outcome'>): AttemptResult => ({
      deliveryId: delivery.id,
      attempt: delivery.attempt,
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(performance.now() - started),
      statusCode: null,
      error: null,
      responseHeaders: null,
      responseBody: null,
      retryAfterSeconds: null,
      ...fields,
    });
    if (delivery.endpoint.state !== 'enabled') return result({ outcome: 'endpoint-disabled', error: 'endpoint disabled' });
    let secrets: string[];
    try {
      secrets = await withinTime(
        resolveSigningSecrets(this.deps.secretResolver, { id: delivery.endpointId, organizationId: delivery.organizationId, ...delivery.endpoint }, startedAt),
        RESOLVER_TIMEOUT_MS,
        'the webhook secret resolver did not answer in time',
      );
    } catch (error) {
      if (!(error instanceof NoPlaintextSecretError)) this.deps.logger.error({ err: error, endpointId: delivery.endpointId }, 'the webhook secret resolver failed');
      return result({ outcome: 'failed', error: NO_PLAINTEXT_SECRET });
    }
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    try {
      const response = await this.deps.sender.send({
        url: delivery.endpoint.url,
        body: delivery.body,
        headers: {
          ...(await signatureHeaders(delivery, secrets, timestamp)),
          [WEBHOOK_HEADERS.deliveryId]: delivery.id,
          [WEBHOOK_HEADERS.idempotencyKey]: delivery.idempotencyKey,
          [WEBHOOK_HEADERS.attempt]: String(delivery.attempt),
          [WEBHOOK_HEADERS.sequence]: String(delivery.sequence),
        },
      });
      const status = response.statusCode;
      const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [storable(name), storable(value)]));
      const outcome = status >= 200 && status < 300 ? 'succeeded' : status === 410 ? 'gone' : 'failed';
      return result({
        outcome,
        statusCode: status,
        error: outcome === 'succeeded' ? null : `HTTP ${status}`,
        responseHeaders: headers,
        responseBody: storable(response.body),
        retryAfterSeconds: status === 429 || status === 503 ? parseRetryAfter(response.headers['retry-after']) : null,
      });
    } catch (error) {
      if (error instanceof WebhookSendError) return result({ outcome: 'failed', error: storable(error.message).slice(0, 2000) });
      this.deps.logger.error({ err: error, deliveryId: delivery.id }, 'webhook attempt failed unexpectedly');
      return result({ outcome: 'failed', error: 'the attempt failed inside the worker' });
    }
  }

  private gathering?: NodeJS.Timeout;

  private queueResult(result: AttemptResult): void {
    this.results.push(result);
    if (this.results.length >= this.batchSize && !this.recording) {
      void this.flushResults();
      return;
    }
    if (this.recording || this.gathering) return;
    this.gathering = setTimeout(() => {
      this.gathering = undefined;
      void this.flushResults();
    }, RECORD_GATHER_MS);
  }

  /** Writes what has finished and completes its jobs, in one transaction; results that finish meanwhile go in the next batch. */
  private flushResults(): Promise<void> {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    this.recording ??= (async () => {
      while (this.results.length > 0) {
        const batch = this.results.splice(0, RECORD_BATCH);
        const ids = batch.map((result) => result.deliveryId);
        const queues = new Set(ids.map((id) => this.held.get(id)?.queue).filter((queue): queue is string => queue !== undefined));
        const jobs = new Map<string, string[]>();
        for (const id of ids) {
          const held = this.held.get(id);
          if (held) jobs.set(held.queue, [...(jobs.get(held.queue) ?? []), ...held.jobIds]);
        }
        let recorded: RecordedAttempts | undefined;
        try {
          recorded = await this.deps.recordAttempts(
            batch,
            [...jobs].map(([queue, jobIds]) => ({ queue, ids: jobIds })),
          );
        } catch (error) {
          // Their claims run out and their jobs expire: they are sent again, at least once, never lost.
          this.deps.logger.error({ err: error, attempts: batch.length }, 'recording webhook attempts failed');
        } finally {
          // Held no longer, whatever happened: the slots are free again.
          for (const id of ids) this.forget(id);
        }
        if (recorded?.nextRetryInSeconds != null) for (const queue of queues) this.wakeAt(queue, recorded.nextRetryInSeconds);
        // The next delivery about a record may go once the one before it is recorded as settled.
        if (recorded && recorded.released > 0) this.want(queues);
        else this.pump();
      }
    })().finally(() => {
      this.recording = null;
      // A result that came after the loop's last look must not wait for the next one to finish.
      if (this.results.length > 0) void this.flushResults();
    });
    return this.recording;
  }

  private forget(deliveryId: string): void {
    const held = this.held.get(deliveryId);
    if (!held) return;
    this.held.delete(deliveryId);
    this.heldByQueue.set(held.queue, (this.heldByQueue.get(held.queue) ?? 1) - 1);
  }

  /** Looks at the queue again when a retry recorded here comes due (other workers find it by polling). */
  private wakeAt(queue: string, inSeconds: number): void {
    if (this.stopped || !this.unsubscribe) return;
    const at = Date.now() + inSeconds * 1000;
    const current = this.retryTimers.get(queue);
    if (current && current.at <= at) return;
    if (current) clearTimeout(current.timer);
    const timer = setTimeout(() => {
      this.retryTimers.delete(queue);
      this.want([queue]);
    }, Math.max(0, at - Date.now()) + 20);
    timer.unref();
    this.retryTimers.set(queue, { at, timer });
  }
}
