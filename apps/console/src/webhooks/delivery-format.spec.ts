import { describe, expect, it } from 'vitest';
import { describeKeptBody, describeOutcome, firstLineOf } from './delivery-format';

describe('describeOutcome', () => {
  it('says the status once when the worker noted only the status', () => {
    expect(describeOutcome({ lastStatusCode: 500, lastError: 'HTTP 500' })).toBe('HTTP 500');
  });

  it('adds the first line of the body kept as the receiver’s reason', () => {
    expect(describeOutcome({ lastStatusCode: 500, lastError: 'HTTP 500' }, '\n  database is down\nstack…')).toBe('HTTP 500: database is down');
  });

  it('keeps a note that says more than the status', () => {
    expect(describeOutcome({ lastStatusCode: 503, lastError: 'HTTP 503: busy' }, 'ignored')).toBe('HTTP 503: busy');
  });

  it('says the status alone for a success with an empty body', () => {
    expect(describeOutcome({ lastStatusCode: 204, lastError: null }, '')).toBe('HTTP 204');
  });

  it('says why there was no answer', () => {
    expect(describeOutcome({ lastStatusCode: null, lastError: 'connection refused' })).toBe('connection refused');
    expect(describeOutcome({ lastStatusCode: null, lastError: null })).toBe('—');
  });
});

describe('firstLineOf', () => {
  it('shortens a long line to fit', () => {
    const line = firstLineOf('x'.repeat(500));
    expect(line).toHaveLength(120);
    expect(line?.endsWith('…')).toBe(true);
  });

  it('has nothing for a blank body', () => {
    expect(firstLineOf(' \n \r\n')).toBeNull();
    expect(firstLineOf(null)).toBeNull();
  });
});

describe('describeKeptBody', () => {
  it('counts the bytes of a body kept whole', () => {
    expect(describeKeptBody('okay')).toBe('Body, 4 bytes');
    expect(describeKeptBody('é')).toBe('Body, 2 bytes');
  });

  it('says a body cut at the limit is its first 4 KiB', () => {
    expect(describeKeptBody('x'.repeat(4096))).toBe('First 4 KiB of the body');
  });
});
