import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/infra/config.js';
import {
  canonicalOrigin,
  createConnectionLimiter,
  createMessageThrottle,
  normalizeAddress,
  type ProtectionSettings,
} from '../../src/realtime/protection/index.js';
import { createMemoryMessageThrottle } from '../../src/realtime/protection/throttle.js';

/** A clock the test moves by hand. */
const fakeClock = (start = 1_000_000) => {
  let t = start;
  return {
    now: () => t,
    set: (at: number) => {
      t = at;
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
};

const settingsOf = (over: Partial<ProtectionSettings>): ProtectionSettings => ({
  ...loadConfig({}).ws,
  throttlerDisabled: false,
  ...over,
});

/** The most accepted messages that fall in any span of `ttl` ms (half-open, like the throttle's window). */
const mostInAnyWindow = (accepted: readonly number[], ttl: number): number =>
  Math.max(0, ...accepted.map((start) => accepted.filter((t) => t >= start && t < start + ttl).length));

/** What a fixed-window counter (buckets of `ttl` ms aligned to the epoch) would accept: the design we must not have. */
const fixedWindowReference = (ttl: number, limit: number) => {
  const counts = new Map<number, number>();
  return (at: number): boolean => {
    const bucket = Math.floor(at / ttl);
    const n = counts.get(bucket) ?? 0;
    if (n >= limit) return false;
    counts.set(bucket, n + 1);
    return true;
  };
};

/** The specification, written the slow obvious way: every accepted time kept, counted on each message. */
const slidingReference = (ttl: number, limit: number, block: number) => {
  const accepted = new Map<string, number[]>();
  const blockedUntil = new Map<string, number>();
  return (address: string, at: number): number => {
    const until = blockedUntil.get(address) ?? -Infinity;
    if (at < until) return until - at;
    const mine = accepted.get(address) ?? [];
    if (mine.filter((t) => t > at - ttl).length >= limit) {
      blockedUntil.set(address, at + block);
      return block;
    }
    accepted.set(address, [...mine, at]);
    return 0;
  };
};

describe('message throttle, in-process', () => {
  it('when the spec defaults apply, then 240 messages pass and the 241st is refused and blocks the address for 600 s', async () => {
    const clock = fakeClock();
    const throttled: string[] = [];
    const throttle = createMessageThrottle(settingsOf({ now: clock.now, onThrottled: (a) => throttled.push(a) }));
    for (let i = 0; i < 240; i += 1) {
      expect(await throttle.hit('203.0.113.1')).toEqual({ allowed: true });
      clock.advance(100); // 240 messages over 24 s: all inside one 60 s window
    }
    expect(await throttle.hit('203.0.113.1')).toEqual({ allowed: false, retryAfterMs: 600_000 });
    expect(await throttle.hit('203.0.113.2')).toEqual({ allowed: true });
    expect(throttled).toEqual(['203.0.113.1']);
  });

  it('when the environment overrides the limits, then the throttle follows them; WS_THROTTLER_DISABLE lets everything through', async () => {
    const clock = fakeClock();
    const ws = loadConfig({ WS_THROTTLER_TTL: '1000', WS_THROTTLER_LIMIT: '3', WS_THROTTLER_BLOCK_DURATION: '5000' }).ws;
    const throttle = createMessageThrottle({ ...ws, now: clock.now });
    const verdicts = [];
    for (let i = 0; i < 4; i += 1) verdicts.push(await throttle.hit('a'));
    expect(verdicts).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }, { allowed: false, retryAfterMs: 5000 }]);

    const disabled = createMessageThrottle({ ...loadConfig({ WS_THROTTLER_DISABLE: 'true', WS_THROTTLER_LIMIT: '1' }).ws, now: clock.now });
    const all = await Promise.all(Array.from({ length: 1000 }, () => disabled.hit('a')));
    expect(all.every((v) => v.allowed)).toBe(true);
  });

  it('when the window has passed but the block has not, then messages are still refused; after the block they pass again', async () => {
    const clock = fakeClock();
    const throttle = createMessageThrottle(
      settingsOf({ throttlerTtlMs: 1000, throttlerLimit: 5, throttlerBlockDurationMs: 10_000, now: clock.now }),
    );
    for (let i = 0; i < 5; i += 1) expect((await throttle.hit('a')).allowed).toBe(true);
    expect(await throttle.hit('a')).toEqual({ allowed: false, retryAfterMs: 10_000 });
    clock.advance(2000);
    expect(await throttle.hit('a')).toEqual({ allowed: false, retryAfterMs: 8000 });
    clock.advance(7999);
    expect(await throttle.hit('a')).toEqual({ allowed: false, retryAfterMs: 1 });
    clock.advance(1);
    expect(await throttle.hit('a')).toEqual({ allowed: true });
  });

  it('when a burst of the limit ends a fixed bucket and another starts the next, then a fixed window passes twice the limit within one window and this throttle passes the limit', async () => {
    const ttl = 1000;
    const limit = 10;
    const clock = fakeClock(50_000);
    const throttle = createMessageThrottle(
      settingsOf({ throttlerTtlMs: ttl, throttlerLimit: limit, throttlerBlockDurationMs: 60_000, now: clock.now }),
    );
    const fixed = fixedWindowReference(ttl, limit);
    const ours: number[] = [];
    const theirs: number[] = [];
    const burstAt = async (at: number) => {
      for (let i = 0; i < limit; i += 1) {
        clock.set(at + i);
        if ((await throttle.hit('a')).allowed) ours.push(clock.now());
        if (fixed(clock.now())) theirs.push(clock.now());
      }
    };
    await burstAt(50_900); // t = 0.9 s of the bucket [50 s, 51 s)
    await burstAt(51_100); // t = 1.1 s: the next bucket
    expect(mostInAnyWindow(theirs, ttl)).toBe(2 * limit);
    expect(ours).toHaveLength(limit);
    expect(mostInAnyWindow(ours, ttl)).toBe(limit);
  });

  it('when messages leave the window one by one, then exactly that many slots free up (no bucket reset)', async () => {
    const clock = fakeClock(0);
    const throttle = createMessageThrottle(
      settingsOf({ throttlerTtlMs: 1000, throttlerLimit: 10, throttlerBlockDurationMs: 60_000, now: clock.now }),
    );
    const hits = async (n: number) => {
      const verdicts = [];
      for (let i = 0; i < n; i += 1) verdicts.push((await throttle.hit('a')).allowed);
      return verdicts;
    };
    clock.set(100);
    expect(await hits(5)).toEqual([true, true, true, true, true]);
    clock.set(900);
    expect(await hits(5)).toEqual([true, true, true, true, true]);
    // At 1.1 s the five from 0.1 s have left the window, the five from 0.9 s have not: five more and no more.
    clock.set(1100);
    expect(await hits(6)).toEqual([true, true, true, true, true, false]);
  });

  it('for any arrival times and addresses, then the verdicts are exactly those of the sliding-window definition', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(4, 10, 20),
        fc.integer({ min: 1, max: 30 }),
        // Gaps that add up to the window length often: messages land exactly on a window's edge.
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.constantFrom(0, 1, 2, 3, 5, 10, 25)), { maxLength: 200 }),
        async (limit, ttl, block, steps) => {
          const clock = fakeClock(0);
          const throttle = createMessageThrottle(
            settingsOf({ throttlerTtlMs: ttl, throttlerLimit: limit, throttlerBlockDurationMs: block, now: clock.now }),
          );
          const reference = slidingReference(ttl, limit, block);
          for (const [address, gap] of steps) {
            clock.advance(gap);
            const verdict = await throttle.hit(address);
            const expected = reference(address, clock.now());
            expect(verdict).toEqual(expected === 0 ? { allowed: true } : { allowed: false, retryAfterMs: expected });
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('when addresses go quiet, then they are forgotten: memory stays bounded by the recently active addresses', async () => {
    const clock = fakeClock();
    const throttle = createMemoryMessageThrottle(
      settingsOf({ throttlerTtlMs: 1000, throttlerLimit: 2, throttlerBlockDurationMs: 5000, now: clock.now }),
    );
    for (let i = 0; i < 500; i += 1) await throttle.hit(`10.0.${i >> 8}.${i & 255}`);
    await throttle.hit('blocked');
    await throttle.hit('blocked');
    expect(await throttle.hit('blocked')).toEqual({ allowed: false, retryAfterMs: 5000 });
    expect(throttle.tracked()).toBe(501);
    clock.advance(1000);
    await throttle.hit('fresh');
    expect(throttle.tracked()).toBe(2); // 'blocked' is kept while its block runs, plus 'fresh'
    clock.advance(5000);
    await throttle.hit('fresh');
    expect(throttle.tracked()).toBe(1);
    expect(await throttle.hit('blocked')).toEqual({ allowed: true });
  });
});

describe('connection limiter, in-process', () => {
  it('when an address holds the maximum, then the next slot is refused until one is released; other addresses are not affected', async () => {
    const limiter = createConnectionLimiter(settingsOf({ maxConnectionsPerIp: 2 }));
    expect(await limiter.acquire('a', 'c1')).toBe(true);
    expect(await limiter.acquire('a', 'c2')).toBe(true);
    expect(await limiter.acquire('a', 'c2')).toBe(true); // the same connection asks again: still one slot
    expect(await limiter.acquire('a', 'c3')).toBe(false);
    expect(await limiter.acquire('b', 'c4')).toBe(true);
    await limiter.release('a', 'c1');
    await limiter.release('a', 'c1');
    expect(await limiter.acquire('a', 'c3')).toBe(true);
    expect(await limiter.acquire('a', 'c5')).toBe(false);
    await limiter.close();
  });
});

describe('normalizeAddress', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['203.0.113.7:5555', '203.0.113.7'],
    ['::ffff:198.51.100.4', '198.51.100.4'],
    ['::FFFF:c633:6404', '198.51.100.4'],
    ['0:0:0:0:0:ffff:198.51.100.4', '198.51.100.4'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['[::1]', '::1'],
  ])('when given %s, then it reads %s', (raw, expected) => {
    expect(normalizeAddress(raw)).toBe(expected);
  });

  it.each(['', 'unknown', 'not-an-ip', '1.2.3', '999.1.1.1', '_hidden'])('when given %j, then it is not an address', (raw) => {
    expect(normalizeAddress(raw)).toBeUndefined();
  });
});

describe('canonicalOrigin', () => {
  it.each([
    ['https://casino.example', 'https://casino.example'],
    ['https://Casino.Example', 'https://casino.example'],
    ['https://casino.example:443', 'https://casino.example'],
    ['https://casino.example/', 'https://casino.example'],
    ['http://localhost:5173', 'http://localhost:5173'],
  ])('when given %s, then it is %s', (raw, expected) => {
    expect(canonicalOrigin(raw)).toBe(expected);
  });

  it.each([
    'null',
    '',
    'casino.example',
    'https://casino.example/path',
    'https://user@casino.example',
    'https://casino.example?x=1',
    'file:///etc/passwd',
  ])('when given %j, then it is not an origin', (raw) => {
    expect(canonicalOrigin(raw)).toBeUndefined();
  });
});
