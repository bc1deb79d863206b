import { performance } from 'node:perf_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '@mrp/platform';
import { claimDueDeliveries, type ClaimedDelivery } from '../deliveries/delivery-queue';
import type { AttemptResult } from '../deliveries/record-attempts';
import { parseRetryAfter } from '../deliveries/retry-schedule';
import { NO_PLAINTEXT_SECRET, NoPlaintextSecretError, resolveSigningSecrets, type WebhookSecretResolver } from '../secrets/secret-resolver';
import { signWebhookPayload } from '../signature/sign-webhook-payload';
import { WEBHOOK_HEADERS } from '../signature/webhook-headers';
import { WebhookSendError } from '../url-safety/webhook-send-error';
import type { WebhookSender } from '../url-safety/webhook-sender';

export interface DeliveryWorkerOptions {
  /** Deliveries one claim takes at most. */
  batchSize?: number;
  /** Attempts in flight to one endpoint at most, so a slow receiver cannot take every slot. */
  perEndpointConcurrency?: number;
  /** Attempts in flight in all. */
  maxInFlight?: number;
  /** How long a claim holds a delivery; past it, the delivery of a worker that died is claimed again. */
  leaseSeconds: number;
}

export interface DeliveryWorkerDeps {
  /** A fresh ORM context for each claim (never the global one). */
  newContext(): EntityManager;
  sender: WebhookSender;
  secretResolver: WebhookSecretResolver;
  /** Records attempts through the `webhooks.deliveries.recordAttempts` procedure, as a system principal. */
  recordAttempts(results: AttemptResult[]): Promise<void>;
  logger: Logger;
  now?: () => Date;
}

const RECORD_BATCH = 500;

/** Text PostgreSQL can keep (no NUL, no lone surrogate), whatever a receiver sent: one bad byte must not lose a batch of results. */
const storable = (text: string) => text.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/**
 * Claims due deliveries and sends them, signed, with bounded concurrency overall and per endpoint;
 * results are recorded in batches (whatever finished while the previous batch was written).
 * `wake()` asks for a claim now (a NOTIFY, a poll tick); `drain()` delivers everything due and returns
 * how many it attempted (the sweep). Nothing here decides what an outcome means for the delivery or
 * the endpoint: the recordAttempts procedure does.
 */
export class DeliveryWorker {
  private readonly batchSize: number;
  private readonly perEndpoint: number;
  private readonly maxInFlight: number;
  private readonly inFlightByEndpoint = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private inFlight = 0;
  private claiming: Promise<void> | null = null;
  private wakeRequested = false;
  private stopped = false;
  private results: AttemptResult[] = [];
  private recording: Promise<void> | null = null;
  private attempted = 0;
  /** While draining: how many more deliveries may be claimed. */
  private budget = Number.POSITIVE_INFINITY;

  constructor(
    private readonly deps: DeliveryWorkerDeps,
    private readonly options: DeliveryWorkerOptions,
  ) {
    this.batchSize = options.batchSize ?? 50;
    this.perEndpoint = options.perEndpointConcurrency ?? 10;
    this.maxInFlight = options.maxInFlight ?? 100;
  }

  /** Claims what is due now, unless a claim is under way (it then runs once more when done). */
  wake(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.wakeRequested = true;
      return;
    }
    this.claiming = this.claimWhileDue()
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'claiming webhook deliveries failed'))
      .finally(() => {
        this.claiming = null;
        if (this.wakeRequested) {
          this.wakeRequested = false;
          this.wake();
        }
      });
  }

  /**
   * Delivers what is due now, up to `limit` deliveries (a steady stream of changes must not keep a
   * sweep running for ever), waits for the results to be recorded, and returns how many it attempted.
   */
  async drain(limit = 1000): Promise<number> {
    const before = this.attempted;
    this.budget = limit;
    try {
      do {
        this.wake();
        while (this.claiming || this.running.size > 0) {
          await Promise.race([...(this.claiming ? [this.claiming] : []), ...this.running]);
        }
      } while (this.wakeRequested && this.budget > 0);
      await this.flushResults();
    } finally {
      this.budget = Number.POSITIVE_INFINITY;
    }
    return this.attempted - before;
  }

  /** Stops claiming, lets the attempts in flight finish (each is bounded by the send timeout) and records them. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.claiming;
    await Promise.all(this.running);
    await this.flushResults();
  }

  private freeSlots(): Map<string, number> {
    return new Map([...this.inFlightByEndpoint].map(([endpointId, count]) => [endpointId, this.perEndpoint - count]));
  }

  private async claimWhileDue(): Promise<void> {
    for (;;) {
      const room = Math.min(this.batchSize, this.maxInFlight - this.inFlight, this.budget);
      if (this.stopped || room <= 0) return;
      const claimed = await claimDueDeliveries(this.deps.newContext(), {
        limit: room,
        perEndpoint: this.perEndpoint,
        freeSlots: this.freeSlots(),
        leaseSeconds: this.options.leaseSeconds,
      });
      for (const delivery of claimed) this.start(delivery);
      // Fewer than asked: nothing else is due, or what is due waits for a busy endpoint to free a slot.
      if (claimed.length < room) return;
    }
  }

  private start(delivery: ClaimedDelivery): void {
    this.inFlight += 1;
    this.budget -= 1;
    this.attempted += 1;
    this.inFlightByEndpoint.set(delivery.endpointId, (this.inFlightByEndpoint.get(delivery.endpointId) ?? 0) + 1);
    const run = this.attempt(delivery)
      .then((result) => this.queueResult(result))
      .finally(() => {
        this.inFlight -= 1;
        const left = (this.inFlightByEndpoint.get(delivery.endpointId) ?? 1) - 1;
        if (left > 0) this.inFlightByEndpoint.set(delivery.endpointId, left);
        else this.inFlightByEndpoint.delete(delivery.endpointId);
        this.running.delete(run);
        // A slot is free: what waited for it (this endpoint's queue, or the worker's limit) may go now.
        this.wake();
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
      secrets = await resolveSigningSecrets(this.deps.secretResolver, { id: delivery.endpointId, organizationId: delivery.organizationId, ...delivery.endpoint }, startedAt);
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
          [WEBHOOK_HEADERS.signature]: await signWebhookPayload({ secrets, timestamp, body: delivery.body }),
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          [WEBHOOK_HEADERS.deliveryId]: delivery.id,
          [WEBHOOK_HEADERS.idempotencyKey]: delivery.idempotencyKey,
          [WEBHOOK_HEADERS.attempt]: String(delivery.attempt),
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

  private queueResult(result: AttemptResult): Promise<void> {
    this.results.push(result);
    return this.flushResults();
  }

  /** Writes what has finished; results that finish meanwhile go in the next batch. */
  private flushResults(): Promise<void> {
    this.recording ??= (async () => {
      while (this.results.length > 0) {
        const batch = this.results.splice(0, RECORD_BATCH);
        try {
          await this.deps.recordAttempts(batch);
        } catch (error) {
          // Their leases run out and they are sent again: at least once, never lost.
          this.deps.logger.error({ err: error, attempts: batch.length }, 'recording webhook attempts failed');
        }
      }
    })().finally(() => {
      this.recording = null;
      // A result that came after the loop's last look must not wait for the next one to finish.
      if (this.results.length > 0) void this.flushResults();
    });
    return this.recording;
  }
}
