import { randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/infra/config.js';
import {
  clientAddress,
  createConnectionLimiter,
  createMessageThrottle,
  originAllowed,
  validateTrustProxy,
  type ConnectionLimiter,
  type ProtectionSettings,
} from '../../src/realtime/protection/index.js';
import { eventuallyTrue } from '../support/eventually.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, Math.max(0, ms));
  });
const sleepUntil = (at: number) => sleep(at - Date.now());

/** The most accepted messages that fall in any span of `ttl` ms. */
const mostInAnyWindow = (accepted: readonly number[], ttl: number): number =>
  Math.max(0, ...accepted.map((start) => accepted.filter((t) => t >= start && t < start + ttl).length));

/** A fixed-window counter (buckets of `ttl` ms aligned to the epoch): the design this throttle must not have. */
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

describe('realtime protection on Redis (shared by every gateway)', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  const extraConnections: Redis[] = [];
  const limiters: ConnectionLimiter[] = [];
  const prefix = `test:protection:${randomBytes(4).toString('hex')}:`;
  let n = 0;
  /** Each test its own key prefix: nothing carries over between tests or parallel files. */
  const settings = (over: Partial<ProtectionSettings> = {}): ProtectionSettings => {
    n += 1;
    return { ...loadConfig({}).ws, keyPrefix: `${prefix}${n}:`, ...over };
  };
  const limiter = (s: ProtectionSettings, client: Redis = redis): ConnectionLimiter => {
    const l = createConnectionLimiter(s, client);
    limiters.push(l);
    return l;
  };
  const keysOf = (s: ProtectionSettings) => redis.keys(`${s.keyPrefix}*`);

  afterAll(async () => {
    await Promise.all(limiters.map((l) => l.close()));
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    extraConnections.forEach((c) => c.disconnect());
    redis.disconnect();
  });

  describe('message throttle', () => {
    it('when the spec defaults apply, then 240 messages pass, the 241st is refused with the 600 s block, and both keys expire on their own', async () => {
      const s = settings();
      expect([s.throttlerTtlMs, s.throttlerLimit, s.throttlerBlockDurationMs, s.throttlerDisabled]).toEqual([60_000, 240, 600_000, false]);
      const throttled: string[] = [];
      const throttle = createMessageThrottle({ ...s, onThrottled: (a) => throttled.push(a) }, redis);
      const verdicts = [];
      for (let i = 0; i < 241; i += 1) verdicts.push(await throttle.hit('203.0.113.10'));
      expect(verdicts.slice(0, 240).every((v) => v.allowed)).toBe(true);
      expect(verdicts[240]).toEqual({ allowed: false, retryAfterMs: 600_000 });
      const again = await throttle.hit('203.0.113.10');
      expect(again.allowed).toBe(false);
      expect(!again.allowed && again.retryAfterMs > 0 && again.retryAfterMs <= 600_000).toBe(true);
      expect(await throttle.hit('203.0.113.11')).toEqual({ allowed: true });
      expect(throttled).toEqual(['203.0.113.10', '203.0.113.10']);

      const window = `${s.keyPrefix}throttle:{203.0.113.10}`;
      expect(await redis.zcard(window)).toBe(240);
      const [windowTtl, blockTtl] = await Promise.all([redis.pttl(window), redis.pttl(`${window}:block`)]);
      expect(windowTtl > 0 && windowTtl <= 60_000).toBe(true);
      expect(blockTtl > 0 && blockTtl <= 600_000).toBe(true);
    });

    it('when the window has passed but the block has not, then messages are still refused; after the block they pass again', async () => {
      const throttle = createMessageThrottle(settings({ throttlerTtlMs: 500, throttlerLimit: 5, throttlerBlockDurationMs: 3000 }), redis);
      for (let i = 0; i < 5; i += 1) expect(await throttle.hit('a')).toEqual({ allowed: true });
      expect(await throttle.hit('a')).toEqual({ allowed: false, retryAfterMs: 3000 });
      await sleep(1000); // the five accepted messages have left the 500 ms window; the block runs on
      const during = await throttle.hit('a');
      expect(during.allowed).toBe(false);
      const left = during.allowed ? 0 : during.retryAfterMs;
      expect(left > 0 && left < 3000).toBe(true);
      await sleep(left + 50);
      expect(await throttle.hit('a')).toEqual({ allowed: true });
    });

    it('when a burst of the limit ends a fixed bucket and another starts the next, then a fixed window would pass twice the limit and this throttle passes the limit', async () => {
      const ttl = 2000;
      const limit = 10;
      const s = settings({ throttlerTtlMs: ttl, throttlerLimit: limit, throttlerBlockDurationMs: 60_000 });
      const throttle = createMessageThrottle(s, redis);
      const fixed = fixedWindowReference(ttl, limit);
      const ours: number[] = [];
      const theirs: number[] = [];
      const burst = async () => {
        for (let i = 0; i < limit; i += 1) {
          const at = Date.now();
          if ((await throttle.hit('a')).allowed) ours.push(at);
          if (fixed(at)) theirs.push(at);
        }
      };
      const boundary = Math.ceil((Date.now() + 0.6 * ttl) / ttl) * ttl;
      await sleepUntil(boundary - 0.25 * ttl);
      await burst();
      await sleepUntil(boundary + 0.15 * ttl);
      await burst();
      expect(mostInAnyWindow(theirs, ttl)).toBe(2 * limit);
      expect(ours).toHaveLength(limit);
      // The window itself, on Redis's clock: exactly the accepted messages.
      expect(await redis.zcard(`${s.keyPrefix}throttle:{a}`)).toBe(limit);
    });

    it('when messages leave the window one by one, then exactly that many slots free up (no bucket reset)', async () => {
      const ttl = 2000;
      const throttle = createMessageThrottle(
        settings({ throttlerTtlMs: ttl, throttlerLimit: 10, throttlerBlockDurationMs: 60_000 }),
        redis,
      );
      const hits = async (count: number) => {
        const verdicts = [];
        for (let i = 0; i < count; i += 1) verdicts.push((await throttle.hit('a')).allowed);
        return verdicts;
      };
      const start = Date.now();
      expect(await hits(5)).toEqual([true, true, true, true, true]);
      await sleepUntil(start + 0.6 * ttl);
      expect(await hits(5)).toEqual([true, true, true, true, true]);
      // At 1.3 windows the first five have left the window, the second five have not: five more and no more.
      await sleepUntil(start + 1.3 * ttl);
      expect(await hits(6)).toEqual([true, true, true, true, true, false]);
    });

    it('when two gateways throttle one address on one Redis, then they share the count and the block', async () => {
      const s = settings({ throttlerTtlMs: 60_000, throttlerLimit: 10, throttlerBlockDurationMs: 60_000 });
      const gatewayA = createMessageThrottle(s, redis);
      const gatewayB = createMessageThrottle(s, redis);
      const verdicts = [];
      for (let i = 0; i < 10; i += 1) verdicts.push(await (i % 2 === 0 ? gatewayA : gatewayB).hit('198.51.100.7'));
      expect(verdicts.every((v) => v.allowed)).toBe(true);
      expect(await gatewayB.hit('198.51.100.7')).toEqual({ allowed: false, retryAfterMs: 60_000 });
      expect((await gatewayA.hit('198.51.100.7')).allowed).toBe(false);
      expect(await gatewayA.hit('198.51.100.8')).toEqual({ allowed: true });
    });

    it('when WS_THROTTLER_DISABLE is set, then every message passes and Redis is not touched', async () => {
      const s = settings({ ...loadConfig({ WS_THROTTLER_DISABLE: 'true', WS_THROTTLER_LIMIT: '1' }).ws });
      const throttle = createMessageThrottle(s, redis);
      const verdicts = await Promise.all(Array.from({ length: 50 }, () => throttle.hit('a')));
      expect(verdicts.every((v) => v.allowed)).toBe(true);
      expect(await keysOf(s)).toEqual([]);
    });
  });

  describe('connection limiter', () => {
    it('when two gateways hold slots for one address, then the maximum counts across both; a release frees a slot for either', async () => {
      const s = settings({ maxConnectionsPerIp: 3 });
      const [a, b] = [limiter(s), limiter(s)];
      expect(await a.acquire('192.0.2.1', 'c1')).toBe(true);
      expect(await b.acquire('192.0.2.1', 'c2')).toBe(true);
      expect(await a.acquire('192.0.2.1', 'c3')).toBe(true);
      expect(await b.acquire('192.0.2.1', 'c4')).toBe(false);
      expect(await a.acquire('192.0.2.1', 'c3')).toBe(true); // the same connection again: still one slot
      expect(await a.acquire('192.0.2.1', 'c5')).toBe(false);
      expect(await b.acquire('192.0.2.2', 'c6')).toBe(true);
      await a.release('192.0.2.1', 'c1');
      expect(await b.acquire('192.0.2.1', 'c4')).toBe(true);
      expect(await a.acquire('192.0.2.1', 'c5')).toBe(false);
      const key = `${s.keyPrefix}conn:{192.0.2.1}`;
      expect((await redis.zrange(key, '0', '-1')).sort()).toEqual(['c2', 'c3', 'c4']);
      const ttl = await redis.pttl(key);
      expect(ttl > 0 && ttl <= 30_000).toBe(true);
    });

    it('when a live gateway holds its slots longer than their ttl, then its heartbeat keeps them; closing it frees them', async () => {
      const s = settings({ maxConnectionsPerIp: 3, connectionSlotTtlMs: 900 });
      const live = limiter(s);
      const other = limiter(s);
      for (const id of ['l1', 'l2', 'l3']) expect(await live.acquire('192.0.2.3', id)).toBe(true);
      await sleep(2500); // almost three ttls: the slots only exist because they are refreshed
      expect(await other.acquire('192.0.2.3', 'o1')).toBe(false);
      await live.close();
      expect(await other.acquire('192.0.2.3', 'o1')).toBe(true);
    });

    it('when a gateway dies holding slots (no release, no heartbeat), then its slots expire and the address may connect again', async () => {
      const s = settings({ maxConnectionsPerIp: 3, connectionSlotTtlMs: 900 });
      const ownConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
      extraConnections.push(ownConnection);
      const errors: unknown[] = [];
      const dying = limiter({ ...s, onError: (e) => errors.push(e) }, ownConnection);
      const survivor = limiter(s);
      // The survivor holds a slot of the same address: its heartbeat keeps the key alive, so the dead
      // slots must go one by one on their own expiry, not with the key.
      expect(await survivor.acquire('192.0.2.4', 's0')).toBe(true);
      for (const id of ['d1', 'd2']) expect(await dying.acquire('192.0.2.4', id)).toBe(true);
      expect(await survivor.acquire('192.0.2.4', 's1')).toBe(false);

      ownConnection.disconnect(); // the gateway is gone: nothing refreshes or releases its slots any more
      // Both dead slots go, not just one (each on its own expiry, a few ms apart); the survivor's own slot lives on.
      await eventuallyTrue('a dead slot to expire', () => survivor.acquire('192.0.2.4', 's1'));
      await eventuallyTrue('the other dead slot to expire', () => survivor.acquire('192.0.2.4', 's2'));
      expect(await survivor.acquire('192.0.2.4', 's3')).toBe(false);
      const slots = (await redis.zrange(`${s.keyPrefix}conn:{192.0.2.4}`, '0', '-1')).sort();
      expect(slots).toEqual(['s0', 's1', 's2']);
    });
  });
});

/**
 * clientAddress and originAllowed on real requests: a dual-stack HTTP server (so an IPv4 client shows
 * up as ::ffff:127.0.0.1), the trust list and allowed origins of each case sent in test headers.
 */
describe('client address and Origin of real requests', () => {
  let server: Server;
  let port: number;
  const list = (value: string | string[] | undefined): string[] => (typeof value === 'string' && value !== '' ? value.split(' ') : []);

  beforeAll(async () => {
    server = createServer((req, res) => {
      try {
        const body = {
          remote: req.socket.remoteAddress,
          address: clientAddress(req, list(req.headers['x-test-trust'])),
          origin: originAllowed(req, list(req.headers['x-test-allowed'])),
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      } catch (error) {
        res.writeHead(500).end((error as Error).message);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  type Seen = { status: number; remote: string; address: string; origin: boolean; text: string };
  const send = (opts: { host?: string; trust?: string[]; xff?: string | string[]; origin?: string; allowed?: string[] }): Promise<Seen> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | string[]> = {
        'x-test-trust': (opts.trust ?? []).join(' '),
        'x-test-allowed': (opts.allowed ?? []).join(' '),
        ...(opts.xff === undefined ? {} : { 'x-forwarded-for': opts.xff }),
        ...(opts.origin === undefined ? {} : { origin: opts.origin }),
      };
      const req = request({ host: opts.host ?? '127.0.0.1', port, path: '/', headers }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => {
          const json =
            res.statusCode === 200 ? (JSON.parse(text) as Omit<Seen, 'status' | 'text'>) : { remote: '', address: '', origin: false };
          resolve({ status: res.statusCode ?? 0, text, ...json });
        });
      });
      req.on('error', reject);
      req.end();
    });

  describe('clientAddress', () => {
    it('when TRUST_PROXY is empty, then the socket address counts (IPv4-mapped written as IPv4) and X-Forwarded-For is ignored', async () => {
      const seen = await send({ xff: '203.0.113.7' });
      expect(seen.remote).toBe('::ffff:127.0.0.1');
      expect(seen.address).toBe('127.0.0.1');
    });

    it('when the peer is a trusted proxy, then the rightmost hop is the client', async () => {
      expect((await send({ trust: ['127.0.0.1'], xff: '203.0.113.7' })).address).toBe('203.0.113.7');
      expect((await send({ trust: ['::ffff:127.0.0.1'], xff: '203.0.113.7' })).address).toBe('203.0.113.7');
      expect((await send({ trust: ['loopback'], xff: '203.0.113.7' })).address).toBe('203.0.113.7');
    });

    it('when the client forges hops on the left, then they are never read', async () => {
      expect((await send({ trust: ['127.0.0.1'], xff: '1.1.1.1, 8.8.8.8, 203.0.113.7' })).address).toBe('203.0.113.7');
      // Forged hops that name trusted proxies do not help either: the walk stops at the first untrusted hop from the right.
      expect((await send({ trust: ['127.0.0.1', '10.0.0.0/8'], xff: '10.0.0.1, 203.0.113.7' })).address).toBe('203.0.113.7');
    });

    it('when several proxies (CIDRs) stand in front, then the rightmost hop that is not one of them is the client', async () => {
      const trust = ['127.0.0.1', '10.0.0.0/8', '2001:db8::/32'];
      expect((await send({ trust, xff: '9.9.9.9, 203.0.113.7, 10.1.2.3, 2001:db8::15' })).address).toBe('203.0.113.7');
      expect((await send({ trust, xff: '9.9.9.9, 2606:4700:0:0:0:0:0:1111, 10.200.0.1' })).address).toBe('2606:4700::1111');
      expect((await send({ trust, xff: '::ffff:198.51.100.4, 10.0.0.9' })).address).toBe('198.51.100.4');
      expect((await send({ trust, xff: '[2001:db9::1]:443, 10.0.0.9' })).address).toBe('2001:db9::1');
      expect((await send({ trust, xff: '198.51.100.5:5555' })).address).toBe('198.51.100.5');
    });

    it('when every hop is a trusted proxy, then the leftmost (written by a trusted proxy) is the client', async () => {
      expect((await send({ trust: ['127.0.0.1', '10.0.0.0/8'], xff: '10.0.0.7, 10.0.0.8' })).address).toBe('10.0.0.7');
    });

    it('when the peer is not a trusted proxy, then X-Forwarded-For is ignored even if it names one', async () => {
      expect((await send({ trust: ['10.0.0.0/8'], xff: '203.0.113.7, 10.0.0.1' })).address).toBe('127.0.0.1');
    });

    it('when the request comes over IPv6 loopback, then an IPv6 entry of TRUST_PROXY matches it', async () => {
      const seen = await send({ host: '::1', trust: ['::1'], xff: '203.0.113.7' });
      expect([seen.remote, seen.address]).toEqual(['::1', '203.0.113.7']);
    });

    it('when a trusted proxy writes a hop that is not an address, then the walk stops at that proxy', async () => {
      expect((await send({ trust: ['127.0.0.1', '10.0.0.0/8'], xff: '203.0.113.7, garbage, 10.0.0.3' })).address).toBe('10.0.0.3');
      expect((await send({ trust: ['127.0.0.1'], xff: '' })).address).toBe('127.0.0.1');
    });

    it('when X-Forwarded-For comes in two header lines, then they read as one list', async () => {
      expect((await send({ trust: ['127.0.0.1'], xff: ['1.1.1.1', '203.0.113.7'] })).address).toBe('203.0.113.7');
    });

    it('when TRUST_PROXY holds something that is not an address or CIDR, then it is refused', () => {
      for (const bad of [['10.0.0.0/33'], ['nonsense'], ['10.0.0.0/8/1'], ['10.0.0.0/x']]) {
        expect(() => validateTrustProxy(bad)).toThrow(/TRUST_PROXY/);
      }
      expect(() => validateTrustProxy(['127.0.0.1', '10.0.0.0/8', '::1', 'fc00::/7', 'uniquelocal'])).not.toThrow();
    });
  });

  describe('originAllowed', () => {
    const allowed = ['https://casino.example', 'http://localhost:5173'];
    it.each([
      ['https://casino.example', true],
      ['https://CASINO.example', true],
      ['https://casino.example:443', true],
      ['http://localhost:5173', true],
      ['http://casino.example', false],
      ['https://casino.example:8443', false],
      ['https://evil.casino.example', false],
      ['https://casino.example.evil.test', false],
      ['http://localhost:5174', false],
      ['null', false],
      ['https://casino.example/path', false],
    ])('when Origin is %s, then allowed is %s', async (origin, expected) => {
      expect((await send({ origin, allowed })).origin).toBe(expected);
    });

    it('when there is no Origin header, then it is not allowed (the gateway decides what that means)', async () => {
      expect((await send({ allowed })).origin).toBe(false);
    });
  });
});
