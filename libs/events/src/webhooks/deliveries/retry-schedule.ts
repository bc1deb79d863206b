/** Attempts a delivery gets per round (the first send and a redeliver each start a round). */
export const ATTEMPTS_PER_ROUND = 5;
/** The longest a receiver's `Retry-After` may hold a delivery back. */
export const MAX_RETRY_AFTER_SECONDS = 3600;
/** ±10%, so deliveries that failed together do not all come back at the same instant. */
const JITTER = 0.1;

/**
 * Seconds to wait after the `failedAttempt`-th attempt of a round failed (1 to 4):
 * `base * 4^(failedAttempt - 1)` with jitter, and at least the receiver's `Retry-After` (capped).
 */
export function retryDelaySeconds(
  failedAttempt: number,
  baseSeconds: number,
  { retryAfterSeconds, random = Math.random }: { retryAfterSeconds?: number | null; random?: () => number } = {},
): number {
  const backoff = baseSeconds * 4 ** (failedAttempt - 1) * (1 - JITTER + 2 * JITTER * random());
  const asked = retryAfterSeconds ? Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) : 0;
  return Math.max(backoff, asked);
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(value: string | undefined, now: Date = new Date()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  // Capped here: a receiver's 400-digit number must not become Infinity (or anything past the cap).
  if (/^\d+$/.test(trimmed)) return Number.isSafeInteger(Number(trimmed)) ? Math.min(Number(trimmed), MAX_RETRY_AFTER_SECONDS) : MAX_RETRY_AFTER_SECONDS;
  // An HTTP date starts with the day's name (`Wed, 21 Oct 2015 07:28:00 GMT`); Date.parse takes far more.
  if (!/^[A-Za-z]{3}, /.test(trimmed)) return null;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, Math.ceil((date - now.getTime()) / 1000)));
}
