import { performance } from 'node:perf_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '@mrp/platform';
import { claimDueDeliveries, releaseClaims, renewClaims, sequenceDeliveries, type ClaimedDelivery } from '../deliveries/delivery-queue';
import type { AttemptResult } from '../deliveries/record-attempts';
import { parseRetryAfter } from '../deliveries/retry-schedule';
import { NO_PLAINTEXT_SECRET, NoPlaintextSecretError, resolveSigningSecrets, type WebhookSecretResolver } from '../secrets/secret-resolver';
import { signWebhookPayload } from '../signature/sign-webhook-payload';
import { WEBHOOK_HEADERS } from '../signature/webhook-headers';
import { STANDARD_WEBHOOK_HEADERS, signStandardWebhook } from '../signature/standard-webhooks';
import { WebhookSendError } from '../url-safety/webhook-send-error';
import type { WebhookSender } from '../url-safety/webhook-sender';

export interface DeliveryWorkerOptions {
  /** Deliveries one claim takes at most. */
  batchSize?: number;
  /** Attempts in flight to one endpoint at most, so a slow receiver cannot take every slot. */
  perEndpointConcurrency?: number;
  /** Attempts in flight in all. */
  maxInFlight?: number;
  /**
   * How long a claim holds a delivery unless renewed; the worker renews its claims every third of
   * it while it lives (a heartbeat), so the deliveries of a worker that died are claimed again
   * within this long.
   */
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
 * waiting to keep its slots busy while the next claim is under way.
 */
const WINDOW_FACTOR = 4;

/**
 * Claims due deliveries and sends them, signed, with bounded concurrency overall and per endpoint.
 *
 * Each endpoint has a window of claimed deliveries (four times its concurrency): they wait in a local
 * queue for one of its slots, so a claim fetches many deliveries at once instead of one per freed
 * slot, and it claims again only when an endpoint's window is half empty. A slow endpoint fills
 * its own window and no more, so it cannot starve the others. Results are recorded in batches
 * (whatever finished while the previous batch was written).
 *
 * `wake()` asks for a claim now (a NOTIFY, a poll tick); `drain()` delivers what is due and returns
 * how many it attempted (the sweep). Nothing here decides what an outcome means for the delivery
 * or the endpoint: the recordAttempts procedure does.
 */
export class DeliveryWorker {
  private readonly batchSize: number;
  private readonly perEndpoint: number;
  private readonly window: number;
  private readonly maxHeld: number;
  /** Claimed, not yet sent, per endpoint. */
  private readonly waiting = new Map<string, ClaimedDelivery[]>();
  private readonly inFlightByEndpoint = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private held = 0;
  private finishedSinceClaim = 0;
  private claiming: Promise<void> | null = null;
  private wakeRequested = false;
  /** The last claim found all there was: claim again only when told (NOTIFY, poll) or a window frees. */
  private exhausted = false;
  private stopped = false;
  private results: AttemptResult[] = [];
  private recording: Promise<void> | null = null;
  private attempted = 0;
  /** While draining: how many more deliveries may be claimed. */
  private budget = Number.POSITIVE_INFINITY;
  /** Every delivery this worker claimed and has not recorded or given back, with the attempt it claimed it for. */
  private readonly claims = new Map<string, number>();
  /** Claimed deliveries that keep order with a record: recording one may free the next about it. */
  private readonly ordered = new Set<string>();
  private heartbeat?: NodeJS.Timeout;

  constructor(
    private readonly deps: DeliveryWorkerDeps,
    private readonly options: DeliveryWorkerOptions,
  ) {
    this.batchSize = options.batchSize ?? 100;
    this.perEndpoint = options.perEndpointConcurrency ?? 16;
    this.window = this.perEndpoint * WINDOW_FACTOR;
    this.maxHeld = (options.maxInFlight ?? 100) * WINDOW_FACTOR;
  }

  /**
   * How long a claim holds between heartbeats: long enough for two to be missed (a slow database),
   * short enough that a dead worker's deliveries go out again within seconds.
   */
  static readonly LEASE_SECONDS = 10;

  /** Renews every claim held now, every third of the lease, until stopped. */
  private beat(): void {
    if (this.heartbeat || this.stopped) return;
    this.heartbeat = setInterval(() => {
      if (this.claims.size === 0) return;
      renewClaims(this.deps.newContext(), this.claims, this.options.leaseSeconds).catch((error: unknown) =>
        this.deps.logger.warn({ err: error, claims: this.claims.size }, 'renewing webhook delivery claims failed; they run out unless the next renewal works'),
      );
    }, (this.options.leaseSeconds * 1000) / 3);
    this.heartbeat.unref();
  }

  /** Claims what is due now, unless a claim is under way (it then runs once more when done). */
  wake(): void {
    this.exhausted = false;
    this.claimSoon();
  }

  private claimSoon(): void {
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
          this.claimSoon();
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
      this.wake();
      while (this.claiming || this.running.size > 0) {
        await Promise.race([...(this.claiming ? [this.claiming] : []), ...this.running]);
      }
      await this.flushResults();
    } finally {
      this.budget = Number.POSITIVE_INFINITY;
    }
    return this.attempted - before;
  }

  /**
   * Stops claiming, hands back what it claimed but has not sent (another worker may take it at
   * once), lets the attempts in flight finish (each bounded by the send timeout) and records them.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.claiming;
    const unsent = [...this.waiting.values()].flat().map((delivery) => delivery.id);
    this.waiting.clear();
    if (unsent.length > 0) await releaseClaims(this.deps.newContext(), unsent);
    for (const id of unsent) {
      this.claims.delete(id);
      this.ordered.delete(id);
    }
    await Promise.all(this.running);
    await this.flushResults();
    clearInterval(this.heartbeat);
  }

  private claimedFor(endpointId: string): number {
    return (this.waiting.get(endpointId)?.length ?? 0) + (this.inFlightByEndpoint.get(endpointId) ?? 0);
  }

  private async claimWhileDue(): Promise<void> {
    for (;;) {
      const room = Math.min(this.batchSize, this.maxHeld - this.held, this.budget);
      if (this.stopped || this.exhausted || room <= 0) return;
      this.finishedSinceClaim = 0;
      const endpoints = new Set([...this.waiting.keys(), ...this.inFlightByEndpoint.keys()]);
      const freeSlots = new Map([...endpoints].map((endpointId) => [endpointId, this.window - this.claimedFor(endpointId)]));
      await sequenceDeliveries(this.deps.newContext());
      const claimed = await claimDueDeliveries(this.deps.newContext(), {
        limit: room,
        perEndpoint: this.window,
        freeSlots,
        leaseSeconds: this.options.leaseSeconds,
      });
      for (const delivery of claimed) {
        this.claims.set(delivery.id, delivery.attempt);
        if (delivery.orderingKey !== null) this.ordered.add(delivery.id);
        this.enqueue(delivery);
      }
      if (claimed.length > 0) this.beat();
      if (claimed.length < room) {
        // All that is due now, unless an endpoint's window kept some back (the claim took all its
        // free slots, or it had none): its sends will free them, and claim again.
        const taken = new Map<string, number>();
        for (const { endpointId } of claimed) taken.set(endpointId, (taken.get(endpointId) ?? 0) + 1);
        const heldBack = [...freeSlots.values()].some((free) => free <= 0) || [...taken].some(([endpointId, count]) => count >= (freeSlots.get(endpointId) ?? this.window));
        this.exhausted = !heldBack;
        return;
      }
    }
  }

  private enqueue(delivery: ClaimedDelivery): void {
    this.held += 1;
    this.budget -= 1;
    const queue = this.waiting.get(delivery.endpointId);
    if (queue) queue.push(delivery);
    else this.waiting.set(delivery.endpointId, [delivery]);
    this.pump(delivery.endpointId);
  }

  /** Starts the endpoint's waiting deliveries while it has free slots. */
  private pump(endpointId: string): void {
    const queue = this.waiting.get(endpointId);
    while (queue && queue.length > 0 && (this.inFlightByEndpoint.get(endpointId) ?? 0) < this.perEndpoint) {
      this.start(queue.shift() as ClaimedDelivery);
    }
    if (queue?.length === 0) this.waiting.delete(endpointId);
  }

  private start(delivery: ClaimedDelivery): void {
    this.attempted += 1;
    const endpointId = delivery.endpointId;
    this.inFlightByEndpoint.set(endpointId, (this.inFlightByEndpoint.get(endpointId) ?? 0) + 1);
    const run = this.attempt(delivery)
      .then((result) => {
        this.queueResult(result);
      })
      .finally(() => {
        this.held -= 1;
        const left = (this.inFlightByEndpoint.get(endpointId) ?? 1) - 1;
        if (left > 0) this.inFlightByEndpoint.set(endpointId, left);
        else this.inFlightByEndpoint.delete(endpointId);
        this.running.delete(run);
        this.pump(endpointId);
        // Claim more once the endpoint's window is half empty, or once as many sends finished as
        // half a window (other endpoints may have work): one claim then fetches many.
        this.finishedSinceClaim += 1;
        if (this.claimedFor(endpointId) <= this.window / 2 || this.finishedSinceClaim >= this.window / 2) this.claimSoon();
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

  private queueResult(result: AttemptResult): void {
    this.results.push(result);
    void this.flushResults();
  }

  /** Writes what has finished; results that finish meanwhile go in the next batch. */
  private flushResults(): Promise<void> {
    this.recording ??= (async () => {
      while (this.results.length > 0) {
        const batch = this.results.splice(0, RECORD_BATCH);
        let freed = false;
        try {
          await this.deps.recordAttempts(batch);
          freed = batch.some((result) => this.ordered.has(result.deliveryId));
        } catch (error) {
          // Their leases run out and they are sent again: at least once, never lost.
          this.deps.logger.error({ err: error, attempts: batch.length }, 'recording webhook attempts failed');
        } finally {
          for (const result of batch) {
            this.claims.delete(result.deliveryId);
            this.ordered.delete(result.deliveryId);
          }
        }
        // The next delivery about a record may go once this one is recorded as settled.
        if (freed) this.wake();
      }
    })().finally(() => {
      this.recording = null;
      // A result that came after the loop's last look must not wait for the next one to finish.
      if (this.results.length > 0) void this.flushResults();
    });
    return this.recording;
  }
}
