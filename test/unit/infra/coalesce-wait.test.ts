import { describe, expect, it } from 'vitest';
import { coalesceWait } from '../../../src/infra/follow/shared-subscriptions.js';

describe('coalesceWait: how long the shared read of new events waits for a batch', () => {
  const o = { coalesceMs: 100, coalesceEvents: 64 };

  it('when the ledger is slow (500 events/s), then it waits the whole 100 ms', () => {
    expect(coalesceWait(o, 5, 10)).toBe(100);
  });

  it('when 64 events take 40 ms at the rate the last read saw, then it waits 40 ms', () => {
    expect(coalesceWait(o, 32, 20)).toBe(40);
  });

  it('when the ledger is busy, then it waits a quarter of the most, not less', () => {
    expect(coalesceWait(o, 400, 25)).toBe(25);
  });

  it('when a read found nothing, then it waits the most; without coalesceEvents, always the most', () => {
    expect(coalesceWait(o, 0, 10)).toBe(100);
    expect(coalesceWait({ coalesceMs: 10 }, 400, 25)).toBe(10);
    expect(coalesceWait({}, 400, 25)).toBe(0);
  });
});
