/**
 * npm run bench:realtime [-- --sockets 5000 --users 200 --ops 1000 --concurrency 4 --feeds 40]
 *
 * The realtime path as deployed, three processes on one Redis and one PostgreSQL database of its own:
 *   service   src/main.ts with ROLES=admin-api,public-api,projector (the ledger publisher runs with the projector);
 *   gateway   src/main.ts with ROLES=gateway (throttle off, connection limit raised: one client address here);
 *   this one  the ledger (the very createLedger the service uses, appending to the same store) and every socket.
 *
 * In one run it reports:
 *   1. gateway memory: its RSS before the sockets and with all of them connected and idle, per socket;
 *   2. per-user latency, BalanceUpdated: ledger command → the user's socket, p50/p90/p99/max, measured from the
 *      append's return and from the command's start; baseline in the same run: the bare route, a per-user event
 *      published straight on the Redis channel → gateway → socket (no store, no publisher);
 *   3. public feed fan-out: settled bets → LatestBets to every socket in the live-bets room, deliveries/s and
 *      the time until the last socket has each message; baseline: LatestBets published straight on Redis.
 * Clients and servers share this machine's cores: the figures include the clients' own work.
 * Writes bench/results/realtime-<timestamp>.json. Not a test: nothing here asserts a timing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { isRight } from 'fp-ts/lib/Either.js';
import { Redis } from 'ioredis';
import pg from 'pg';
import { io as ioClient, type Socket } from 'socket.io-client';
import { createAuthKit } from '../src/auth/auth-kit.js';
import { hashPassword } from '../src/auth/passwords.js';
import { loadKeys } from '../src/auth/sessions.js';
import { createLedger } from '../src/commands/ledger.js';
import { createUsers } from '../src/commands/users.js';
import { createPostgresEventStore } from '../src/infra/event-store/postgres/postgres.event-store.js';
import { createPool } from '../src/infra/pg.js';
import { createRedisBus } from '../src/infra/bus.js';
import { LIVE_BETS_ROOM } from '../src/shared/rooms.js';

const { values: args } = parseArgs({
  options: {
    sockets: { type: 'string' },
    users: { type: 'string' },
    ops: { type: 'string' },
    concurrency: { type: 'string' },
    feeds: { type: 'string' },
  },
  allowPositionals: true,
});
const int = (value: string | undefined, fallback: number, name: string): number => {
  const n = Number(value ?? fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
};
const SOCKETS = int(args.sockets ?? process.env.BENCH_SOCKETS, 5_000, 'sockets');
const USERS = Math.min(SOCKETS, int(args.users ?? process.env.BENCH_USERS, 200, 'users'));
const OPS = int(args.ops ?? process.env.BENCH_OPS, 1_000, 'ops');
const CONCURRENCY = Math.min(USERS, int(args.concurrency ?? process.env.BENCH_CONCURRENCY, 4, 'concurrency'));
const FEEDS = int(args.feeds ?? process.env.BENCH_FEEDS, 40, 'feeds');

const BASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'bench password 123';
const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const percentiles = (samples: number[]) => {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN);
  return {
    n: s.length,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    max: round(s.at(-1) ?? NaN),
    mean: round(s.reduce((a, b) => a + b, 0) / s.length),
  };
};

/** A database of its own on the configured server, dropped at the end. */
const databaseUrl = (name: string): string => {
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

type Service = { child: ChildProcess; stop: () => Promise<void> };
/** src/main.ts in a child process; resolves on its "ready" log line (node --import tsx: the pid is the service itself). */
const startService = (name: string, env: Record<string, string>): Promise<Service> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const stop = async (): Promise<void> => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
    };
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; level?: number };
        if (entry.msg === 'ready') resolve({ child, stop });
        if ((entry.level ?? 0) >= 50) process.stderr.write(`[${name}] ${line}\n`);
      } catch {
        // not a log line
      }
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with code ${code} before it was ready`)));
  });

const rssMb = async (pid: number): Promise<number> => {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
  return kb / 1024;
};

/** Settles the gateway's RSS: samples until two readings a second apart differ by under 1 MB. */
const steadyRssMb = async (pid: number): Promise<number> => {
  let last = await rssMb(pid);
  for (let i = 0; i < 10; i += 1) {
    await sleep(1_000);
    const now = await rssMb(pid);
    if (Math.abs(now - last) < 1) return now;
    last = now;
  }
  return last;
};

const connect = (url: string, token?: string): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = ioClient(`${url}/events`, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      timeout: 20_000,
      extraHeaders: { origin: ORIGIN },
      auth: token ? { socket_token: token } : {},
    });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });

const inBatches = async <T>(count: number, width: number, make: (i: number) => Promise<T>): Promise<T[]> => {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next;
        next += 1;
        out[i] = await make(i);
      }
    }),
  );
  return out;
};

const main = async (): Promise<void> => {
  const dbName = `bench_realtime_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-realtime-'));
  // Its own Redis database and channel names as deployed (no prefix): nothing else listens there.
  const redisUrl = `${REDIS_URL.replace(/\/\d+$/, '')}/7`;
  const wsPort = 31_000 + Math.floor(Math.random() * 2_000);
  const common = {
    DATABASE_URL: databaseUrl(dbName),
    REDIS_URL: redisUrl,
    DATA_DIR: dataDir,
    APP_ENV: 'local',
    FRONTEND_ORIGIN: ORIGIN,
    SUPERADMIN_EMAIL: 'root@bench.test',
    SUPERADMIN_PASSWORD: 'bench superadmin password',
    SUPERADMIN_USERNAME: 'benchroot',
    ADMIN_PORT: String(wsPort + 1),
    PUBLIC_PORT: String(wsPort + 2),
    WS_PORT: String(wsPort),
  };
  const services: Service[] = [];
  const sockets: Socket[] = [];
  const pool = createPool({ connectionString: databaseUrl(dbName), max: 16 });
  pool.on('error', () => undefined); // DROP DATABASE ... WITH (FORCE) at the end ends idle connections
  const redis = new Redis(redisUrl, { lazyConnect: false });
  const redisSub = new Redis(redisUrl);
  try {
    const t0 = Date.now();
    // The service first: it migrates the database and writes the signing keys into DATA_DIR for the others.
    services.push(await startService('service', { ...common, ROLES: 'admin-api,public-api,projector' }));
    const gateway = await startService('gateway', {
      ...common,
      ROLES: 'gateway',
      WS_THROTTLER_DISABLE: 'true',
      WS_MAX_CONNECTIONS_PER_IP: String(SOCKETS * 2),
    });
    services.push(gateway);
    console.log(`services up in ${Date.now() - t0} ms (gateway pid ${gateway.child.pid}, ws://127.0.0.1:${wsPort}/events)`);

    const store = createPostgresEventStore({ pool });
    const users = createUsers({ store, pool });
    const ledger = createLedger({ store, pool, userExists: users.exists, canTransact: users.canTransact });
    const kit = await createAuthKit({
      users,
      pool,
      settings: {
        keys: await loadKeys({ dataDir }),
        mfaKey: randomBytes(32),
        accessTtlSeconds: 3600,
        refreshTtlSeconds: 3600,
        mfaChallengeTtlSeconds: 300,
        captcha: { verifyUrl: 'http://127.0.0.1:9/unused', secret: undefined, localBypassToken: 'bench', appEnv: 'local' },
        throttle: { maxFailuresPerAccount: 1e9, maxFailuresPerAddress: 1e9, windowSeconds: 60 },
        geoBlockedCountries: [],
        trustedCountryHeader: 'cf-ipcountry',
        allowedOrigins: [ORIGIN],
        secureCookies: false,
        frontendOrigin: ORIGIN,
      },
    });
    const adminUserId = (await users.idByKey('email', 'root@bench.test'))!;

    // Players: registered through the users aggregate, a session each and its access token as the socket token.
    const passwordHash = await hashPassword(PASSWORD);
    const players = await inBatches(USERS, 8, async (i) => {
      const registered = await users.register({
        email: `p${i}@bench.test`,
        username: `p${i}`,
        passwordHash,
        country: 'DE',
        referrerCode: null,
        marketingOptIn: false,
        provider: 'password',
        registration: { ip: null, userAgent: null, country: null, referrer: null },
      });
      if (!isRight(registered)) throw new Error(`register p${i}: ${JSON.stringify(registered.left)}`);
      const userId = registered.right.userId;
      const session = await kit.sessions.create(userId, { ip: null, userAgent: null });
      return { userId, token: await kit.tokens.signAccess({ userId, sessionId: session.id }) };
    });
    // The publisher names users from the users read model: wait for the projector to have them all.
    for (;;) {
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
      if (rows[0]!.n >= USERS + 1) break;
      await sleep(100);
    }

    const url = `ws://127.0.0.1:${wsPort}`;
    const rssBefore = await steadyRssMb(gateway.child.pid!);
    const connectStart = performance.now();
    const connected = await inBatches(SOCKETS, 64, (i) => connect(url, i < USERS ? players[i]!.token : undefined));
    sockets.push(...connected);
    const connectSeconds = (performance.now() - connectStart) / 1000;
    const rssIdle = await steadyRssMb(gateway.child.pid!);
    const memory = {
      rssBeforeMb: round(rssBefore),
      rssWithSocketsMb: round(rssIdle),
      perIdleSocketKb: round(((rssIdle - rssBefore) * 1024) / SOCKETS, 1),
      authenticatedSockets: USERS,
      anonymousSockets: SOCKETS - USERS,
      connectPerSecond: Math.round(SOCKETS / connectSeconds),
    };
    console.log('memory', JSON.stringify(memory));

    // Each player socket hands BalanceUpdated (and the baseline's marker) to whoever waits for its user.
    const waiters = new Map<string, (at: number) => void>();
    const await1 = (key: string): Promise<number> =>
      new Promise((resolve) => {
        waiters.set(key, resolve);
      });
    players.forEach((p, i) => {
      const socket = sockets[i]!;
      socket.on('BalanceUpdated', () => {
        waiters.get(`b${p.userId}`)?.(performance.now());
        waiters.delete(`b${p.userId}`);
      });
      socket.on('ProfileUpdated', (payload: { marker?: string }) => {
        const key = `m${payload.marker}`;
        waiters.get(key)?.(performance.now());
        waiters.delete(key);
      });
    });

    // Every player gets a balance to bet with (and one BalanceUpdated each, not measured).
    await inBatches(USERS, 8, async (i) => {
      const userId = players[i]!.userId;
      const got = await1(`b${userId}`);
      const tip = await ledger.tip({ recipientUserId: userId, adminUserId, currencyId: 'USDT', amount: '1000', notes: 'bench' });
      if (!isRight(tip)) throw new Error(`tip: ${JSON.stringify(tip.left)}`);
      await got;
    });

    const bus = createRedisBus(redis, redisSub);
    const baselineLatency: number[] = [];
    await inBatches(Math.min(OPS, 500), CONCURRENCY, async (i) => {
      const p = players[i % USERS]!;
      const marker = `${i}-${randomBytes(3).toString('hex')}`;
      const got = await1(`m${marker}`);
      const start = performance.now();
      await bus.publish('ProfileUpdated', { userId: p.userId, payload: { marker } });
      baselineLatency.push((await got) - start);
    });

    const fromAppend: number[] = [];
    const fromCommand: number[] = [];
    // Each worker owns the users w, w + CONCURRENCY, ...: one command in flight per user, so its next BalanceUpdated is that command's.
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, w) => {
        for (let i = w; i < OPS; i += CONCURRENCY) {
          const p = players[(i % Math.floor(USERS / CONCURRENCY)) * CONCURRENCY + w]!;
          const got = await1(`b${p.userId}`);
          const start = performance.now();
          const tip = await ledger.tip({ recipientUserId: p.userId, adminUserId, currencyId: 'USDT', amount: '0.01', notes: 'bench' });
          const appended = performance.now();
          if (!isRight(tip)) throw new Error(`tip: ${JSON.stringify(tip.left)}`);
          const at = await got;
          fromAppend.push(at - appended);
          fromCommand.push(at - start);
        }
      }),
    );
    const latency = {
      balanceUpdatedFromAppendMs: percentiles(fromAppend),
      balanceUpdatedFromCommandStartMs: percentiles(fromCommand),
      baselineRedisToSocketMs: percentiles(baselineLatency),
      concurrency: CONCURRENCY,
    };
    console.log('latency', JSON.stringify(latency));

    // Fan-out: every socket joins the live-bets room, then counts LatestBets (keyed by the newest bet's id).
    const received = { count: 0, lastAt: 0 };
    const perMessage = new Map<string, { n: number; lastAt: number }>();
    const complete = new Map<string, () => void>();
    /** Every bet id the first socket has seen in a LatestBets (a message lists the batch's bets, newest first). */
    const seenBets = new Set<string>();
    sockets[0]!.on('LatestBets', (payload: { id?: string }[]) => {
      for (const b of payload) if (b.id) seenBets.add(b.id);
    });
    await inBatches(
      SOCKETS,
      64,
      (i) =>
        new Promise<void>((resolve) => {
          const socket = sockets[i]!;
          socket.on('LatestBets', (payload: { id?: string }[]) => {
            const at = performance.now();
            received.count += 1;
            received.lastAt = at;
            const key = payload[0]?.id ?? '?';
            const m = perMessage.get(key) ?? { n: 0, lastAt: 0 };
            m.n += 1;
            m.lastAt = at;
            perMessage.set(key, m);
            if (m.n === SOCKETS) complete.get(key)?.();
          });
          socket.emit('LiveBetsJoin', {}, () => resolve());
        }),
    );
    const reset = (): void => {
      received.count = 0;
      perMessage.clear();
      seenBets.clear();
    };
    const clockTicks = 100; // USER_HZ on Linux
    const processCpu = async (pid: number): Promise<number> => {
      const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) / clockTicks; // utime + stime
    };
    const cpuSeconds = async () => {
      const own = process.cpuUsage();
      return {
        gateway: await processCpu(gateway.child.pid!),
        service: await processCpu(services[0]!.child.pid!),
        clients: (own.user + own.system) / 1e6,
      };
    };
    /**
     * Until `done` holds, or deliveries stopped growing for 5 s (a busy gateway can go a second or more
     * without writing while it emits a backlog), at most 3 minutes.
     */
    const drained = async (done: () => boolean): Promise<void> => {
      const deadline = Date.now() + 180_000;
      let last = received.count;
      let still = Date.now();
      while (!done() && Date.now() < deadline && Date.now() - still < 5_000) {
        await sleep(100);
        if (received.count !== last) [last, still] = [received.count, Date.now()];
      }
    };

    /**
     * One message at a time, the next once every socket has the last (or after 5 s): the time from the message's
     * source (the settle's append, or the Redis publish) to the last socket.
     */
    const paced = async (name: string, send: (i: number) => Promise<string>) => {
      reset();
      const toLast: number[] = [];
      let timedOut = 0;
      for (let i = 0; i < FEEDS; i += 1) {
        const key = await send(i);
        const sent = performance.now();
        const all = await new Promise<boolean>((resolve) => {
          if ((perMessage.get(key)?.n ?? 0) >= SOCKETS) return resolve(true);
          const timer = setTimeout(() => {
            complete.delete(key);
            resolve(false);
          }, 5_000);
          complete.set(key, () => {
            clearTimeout(timer);
            complete.delete(key);
            resolve(true);
          });
        });
        if (all) toLast.push(perMessage.get(key)!.lastAt - sent);
        else timedOut += 1;
      }
      const result = { name, messages: FEEDS, deliveries: received.count, timedOut, sourceToLastSocketMs: percentiles(toLast) };
      console.log('fan-out paced', JSON.stringify(result));
      return result;
    };
    /** As fast as the source goes: socket deliveries per second until the last one. */
    const burst = async (name: string, count: number, send: (i: number) => Promise<string>, width: number) => {
      reset();
      const cpu = await cpuSeconds();
      const start = performance.now();
      const keys = await inBatches(count, width, send);
      const sendSeconds = (performance.now() - start) / 1000;
      // Straight on Redis every message is one key; through the publisher a message holds a batch of bets (its key
      // is the newest): done once every message seen so far has reached every socket and the last bet is in one.
      const all = (): boolean => [...perMessage.values()].every((m) => m.n >= SOCKETS);
      await drained(() => all() && (keys.every((k) => perMessage.has(k)) || seenBets.has(keys.at(-1)!)));
      const seconds = (received.lastAt - start) / 1000;
      const used = await cpuSeconds();
      const result = {
        name,
        sent: count,
        messagesDelivered: perMessage.size,
        deliveries: received.count,
        missing: perMessage.size * SOCKETS - received.count,
        sendSeconds: round(sendSeconds, 3),
        seconds: round(seconds, 3),
        deliveriesPerSecond: Math.round(received.count / seconds),
        cpuSeconds: {
          gateway: round(used.gateway - cpu.gateway),
          service: round(used.service - cpu.service),
          clients: round(used.clients - cpu.clients),
        },
      };
      console.log('fan-out burst', JSON.stringify(result));
      return result;
    };

    const runId = randomBytes(3).toString('hex');
    const bettors = players.slice(0, Math.min(USERS, 20));
    let betNo = 0;
    const bet = async (): Promise<string> => {
      const n = betNo;
      betNo += 1;
      const p = bettors[n % bettors.length]!;
      const id = `bench-${runId}-${n}`;
      const placed = await ledger.placeBet({
        id,
        userId: p.userId,
        roundId: `r-${runId}-${n}`,
        gameId: 1,
        gameIdentity: { name: 'Dice', slug: 'dice', type: 'ORIGINALS', provider: { name: 'house' } },
        currencyId: 'USDT',
        amount: '1',
      });
      if (!isRight(placed)) throw new Error(`bet: ${JSON.stringify(placed.left)}`);
      const settled = await ledger.settleBet(id, { payout: '2' });
      if (!isRight(settled)) throw new Error(`settle: ${JSON.stringify(settled.left)}`);
      return id;
    };
    const straight = async (i: number, tag: string): Promise<string> => {
      const id = `${tag}-${runId}-${i}`;
      await bus.publish('LatestBets', { room: LIVE_BETS_ROOM, payload: [{ id, userId: null, amount: '1', payout: '2' }] });
      return id;
    };
    const fanOut = {
      pacedBaseline: await paced('LatestBets published straight on Redis (bare route)', (i) => straight(i, 'paced')),
      pacedLedger: await paced('a settled bet → publisher → Redis → gateway (full path)', () => bet()),
      burstBaseline: await burst('LatestBets published straight on Redis (bare route)', FEEDS * 5, (i) => straight(i, 'burst'), 1),
      burstLedger: await burst(
        'settled bets → publisher → Redis → gateway (full path; the publisher batches bets per message)',
        FEEDS * 5,
        () => bet(),
        CONCURRENCY,
      ),
    };

    const report = {
      at: new Date().toISOString(),
      node: process.version,
      sockets: SOCKETS,
      users: USERS,
      ops: OPS,
      feeds: FEEDS,
      memory,
      latency,
      fanOut,
      aims: { p99FromAppendMs: 50, perIdleSocketKb: 30 },
      note: 'three service processes and the clients share this machine; LatestBets payloads are arrays of bets, the newest first',
    };
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/realtime-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(
      `\nsockets ${SOCKETS} (${USERS} signed in); gateway RSS ${memory.rssBeforeMb} MB → ${memory.rssWithSocketsMb} MB: ${memory.perIdleSocketKb} KB per idle socket (aim < 30)`,
    );
    console.log(
      `BalanceUpdated from append: p50 ${latency.balanceUpdatedFromAppendMs.p50} ms, p99 ${latency.balanceUpdatedFromAppendMs.p99} ms (aim < 50); from command start p99 ${latency.balanceUpdatedFromCommandStartMs.p99} ms; bare Redis → socket p50 ${latency.baselineRedisToSocketMs.p50} ms, p99 ${latency.baselineRedisToSocketMs.p99} ms`,
    );
    console.log(
      `LatestBets to all ${SOCKETS} sockets, source → last socket: full path p50 ${fanOut.pacedLedger.sourceToLastSocketMs.p50} ms, p99 ${fanOut.pacedLedger.sourceToLastSocketMs.p99} ms; bare route p50 ${fanOut.pacedBaseline.sourceToLastSocketMs.p50} ms, p99 ${fanOut.pacedBaseline.sourceToLastSocketMs.p99} ms`,
    );
    console.log(
      `fan-out rate: bare route ${fanOut.burstBaseline.deliveriesPerSecond} deliveries/s; full path ${fanOut.burstLedger.deliveriesPerSecond} deliveries/s (${fanOut.burstLedger.messagesDelivered} messages for ${fanOut.burstLedger.sent} bets)`,
    );
    console.log(`report: ${file}`);
    await store.close();
  } finally {
    sockets.forEach((s) => s.disconnect());
    for (const s of [...services].reverse()) await s.stop();
    redis.disconnect();
    redisSub.disconnect();
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    await rm(dataDir, { recursive: true, force: true });
  }
};

await main();
