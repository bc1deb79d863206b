import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook endpoints, their deliveries (the transactional outbox the worker claims) and every
 * attempt made. See docs/webhooks.md.
 */
export class Migration20261124000100_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        -- NULL: a platform-wide endpoint, managed by platform admins, that sees every event. No
        -- foreign key: organizations are authz's tables, and are never deleted.
        organization_id uuid,
        url text NOT NULL,
        description text NOT NULL DEFAULT '',
        subscriptions text[] NOT NULL,
        -- SHA-256 of the secret; the plaintext is shown once and never stored.
        secret_hash text NOT NULL,
        -- AES-256-GCM under WEBHOOK_SECRET_ENCRYPTION_KEY, bound to the endpoint id; NULL without a key.
        secret_ciphertext text,
        -- The secret before the last rotation, still signing until previous_secret_expires_at.
        previous_secret_hash text,
        previous_secret_ciphertext text,
        previous_secret_expires_at timestamptz,
        state text NOT NULL DEFAULT 'enabled' CHECK (state IN ('enabled', 'disabled')),
        disabled_reason text,
        disabled_at timestamptz,
        consecutive_failures integer NOT NULL DEFAULT 0,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((state = 'disabled') = (disabled_at IS NOT NULL))
      )`);
    // Routing reads the enabled endpoints of one organization, and the platform's (NULL), per change.
    this.addSql('CREATE INDEX webhook_endpoints_routing ON webhook_endpoints (organization_id) WHERE state = \'enabled\'');
    this.addSql('CREATE INDEX webhook_endpoints_organization ON webhook_endpoints (organization_id, id)');

    this.addSql(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        organization_id uuid,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        -- The exact bytes sent, so every attempt and every replay carries the same body.
        body text NOT NULL,
        idempotency_key text NOT NULL UNIQUE,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
        -- Attempts made over the delivery's life (redeliveries included), and those left in this round.
        attempt_count integer NOT NULL DEFAULT 0,
        attempts_left integer NOT NULL DEFAULT 5,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        -- A worker holds the delivery until then; past it, the delivery is free to claim again.
        locked_until timestamptz,
        last_status_code integer,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        UNIQUE (event_id, endpoint_id)
      )`);
    // The worker's claim: due pending deliveries, oldest first.
    this.addSql('CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = \'pending\'');
    // The delivery log: an endpoint's deliveries, newest first, keyset paginated; recover's failed window.
    this.addSql('CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)');
    // Retention pruning.
    this.addSql('CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at)');

    this.addSql(`
      CREATE TABLE webhook_delivery_attempts (
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        status_code integer,
        error text,
        response_headers jsonb,
        -- The first 4 KiB of the response body.
        response_body text,
        PRIMARY KEY (delivery_id, attempt)
      )`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE webhook_delivery_attempts');
    this.addSql('DROP TABLE webhook_deliveries');
    this.addSql('DROP TABLE webhook_endpoints');
  }
}
