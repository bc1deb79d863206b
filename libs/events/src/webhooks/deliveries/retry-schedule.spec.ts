import { ATTEMPTS_PER_ROUND, MAX_RETRY_AFTER_SECONDS, parseRetryAfter, retryDelaySeconds } from './retry-schedule';

describe('retryDelaySeconds', () => {
  it('waits base * 4^(n-1) after the n-th failed attempt, without jitter at the midpoint', () => {
    const delays = [1, 2, 3, 4].map((attempt) => retryDelaySeconds(attempt, 30, { random: () => 0.5 }));
    expect(delays.map((delay) => Math.round(delay * 1000) / 1000)).toEqual([30, 120, 480, 1920]);
    expect(ATTEMPTS_PER_ROUND).toBe(5);
  });

  it('jitters by at most 10% either way', () => {
    expect(retryDelaySeconds(2, 30, { random: () => 0 })).toBeCloseTo(108);
    expect(retryDelaySeconds(2, 30, { random: () => 0.999999 })).toBeCloseTo(132);
  });

  it("waits at least the receiver's Retry-After, capped at an hour", () => {
    expect(retryDelaySeconds(1, 30, { random: () => 0.5, retryAfterSeconds: 600 })).toBe(600);
    expect(retryDelaySeconds(1, 30, { random: () => 0.5, retryAfterSeconds: 86_400 })).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(retryDelaySeconds(3, 30, { random: () => 0.5, retryAfterSeconds: 5 })).toBeCloseTo(480);
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  it('reads seconds and HTTP dates, and ignores the rest', () => {
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Mon, 23 Nov 2026 12:01:30 GMT', now)).toBe(90);
    expect(parseRetryAfter('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('9'.repeat(400), now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(parseRetryAfter('86400', now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
