import { toIso } from '@mrp/platform';
import type { DeliveryAttemptView, DeliveryStatus, DeliveryView } from './delivery-view';

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  idempotency_key: string;
  /** bigint, as text. */
  sequence: string | null;
  status: DeliveryStatus;
  attempt_count: number;
  attempts_left: number;
  next_attempt_at: Date | string;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  completed_at: Date | string | null;
  /** `created_at` to the microsecond, for cursors (a JavaScript Date keeps milliseconds only). */
  created_at_key: string;
}

/** The columns of a DeliveryRow, for `SELECT` and `RETURNING` on `webhook_deliveries` aliased `d`. */
export const DELIVERY_COLUMNS = `d.id, d.endpoint_id, d.event_id, d.event_type, d.idempotency_key, d.sequence, d.status, d.attempt_count,
  d.attempts_left, d.next_attempt_at, d.last_status_code, d.last_error, d.created_at, d.updated_at, d.completed_at,
  to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_key`;

export function toDeliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    idempotencyKey: row.idempotency_key,
    sequence: row.sequence === null ? null : Number(row.sequence),
    status: row.status,
    attemptCount: row.attempt_count,
    attemptsLeft: row.attempts_left,
    nextAttemptAt: row.status === 'pending' ? toIso(row.next_attempt_at) : null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    completedAt: toIso(row.completed_at),
  };
}

export interface AttemptRow {
  attempt: number;
  started_at: Date | string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

export function toAttemptView(row: AttemptRow): DeliveryAttemptView {
  return {
    attempt: row.attempt,
    startedAt: toIso(row.started_at),
    durationMs: row.duration_ms,
    statusCode: row.status_code,
    error: row.error,
    responseHeaders: row.response_headers,
    responseBody: row.response_body,
  };
}
