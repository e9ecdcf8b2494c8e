import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { io as ioClient, type Socket as ClientSocket } from 'socket.io-client';
import { createRates } from '../../src/commands/rates.js';
import { loadConfig, type Config } from '../../src/infra/config.js';
import type { Position } from '../../src/infra/event-store/event-store.port.js';
import { createLogger, type Logger } from '../../src/infra/logger.js';
import { createRedisBus, type ServerEventBus } from '../../src/infra/bus.js';
import { startGateway, type Gateway } from '../../src/realtime/gateway.js';
import { startLedgerPublisher, type LedgerPublisher } from '../../src/realtime/server-event-publisher.js';
import type { Ack, ClientEventHandler } from '../../src/realtime/protocol.js';
import { replayUserEvents, type ReplayResult } from '../../src/realtime/socket-replay.js';
import { createAuthEnv, FRONTEND, signIn, type AuthEnv } from './auth-env.js';
import { eventually } from './eventually.js';

export { FRONTEND };
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The gateways trust the loopback proxy, so each env's clients present their own address in X-Forwarded-For. */
export const LOOPBACK_PROXIES = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

export type WsSettings = Config['ws'];

export type RealtimeEnvOptions = Readonly<{
  /** How many gateway processes (each its own bus subscriber on one Redis); default 1. */
  gateways?: number;
  /** Overrides of the WS_* settings (defaults are the production defaults). */
  ws?: Partial<WsSettings>;
  /** Client-event handlers, built once the auth env (pool, store, users, ledger) exists. */
  handlers?: (env: AuthEnv, bus: ServerEventBus) => readonly ClientEventHandler[];
  handlerTimeoutMs?: number;
  /** Start the projector and the ledger publisher (default true). */
  publisher?: boolean;
  /** Replace the store replay (default: replayUserEvents with WS_REPLAY_MAX_EVENTS). */
  replay?: (env: AuthEnv) => (userId: number, since: Position) => Promise<ReplayResult>;
  deauthSweepMs?: number;
  /** Give the gateways Redis for throttle, connection slots and the online count (default true). */
  sharedProtection?: boolean;
  onThrottled?: (address: string) => void;
  logger?: Logger;
}>;

export type Received = Readonly<{ event: string; payload: unknown; meta: unknown }>;

/** A socket.io client on `/events` that records every event it receives from the moment it was created. */
export type TestClient = Readonly<{
  socket: ClientSocket;
  received: Received[];
  /** The first received event of that name (matching `where`), waiting for it when not there yet. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  waitFor: <T = any>(event: string, where?: (payload: T, meta: any) => boolean, timeoutMs?: number) => Promise<T>;
  /** Every received event of that name, in order. */
  all: (event: string) => Received[];
  /** Emits with an acknowledgement and resolves with it. */
  ack: (event: string, data?: unknown, timeoutMs?: number) => Promise<Ack & Record<string, unknown>>;
  /** Resolves with the disconnect reason once the socket is disconnected. */
  disconnected: () => Promise<string>;
  close: () => void;
}>;

export type ConnectOptions = Readonly<{
  /** Handshake auth field `socket_token`. */
  token?: string;
  /** Cookies on the upgrade request (e.g. {access_token}). */
  cookies?: Record<string, string>;
  /** Origin header; default the allowed front-end origin, `null` sends none (a non-browser client). */
  origin?: string | null;
  /** Handshake auth field `since` (the last ledger position the client saw). */
  since?: string;
  /** Extra handshake auth fields. */
  auth?: Record<string, unknown>;
  /** Extra upgrade headers. */
  headers?: Record<string, string>;
  /** Which gateway (index); default 0. */
  gateway?: number;
  /** Client address as the proxy reports it; default this env's address. */
  address?: string;
}>;

export type RealtimeEnv = AuthEnv &
  Readonly<{
    auth: AuthEnv;
    gateways: Gateway[];
    /** ws://127.0.0.1:<port> of each gateway. */
    urls: string[];
    /** The bus the test side publishes on (same Redis, same prefix as the gateways). */
    bus: ServerEventBus;
    redis: Redis;
    /** Key prefix of this env on the shared Redis. */
    prefix: string;
    ws: WsSettings;
    /** This env's default client address (unique per env so parallel files never share throttles). */
    address: string;
    /** A fresh address for tests that must not share this env's throttle or connection slots. */
    newAddress: () => string;
    /** A socket client; resolves once connected (rejects with the connect_error). */
    connect: (opts?: ConnectOptions) => Promise<TestClient>;
    /** The connect_error of a connection the gateway refuses (rejects when it connects). */
    connectError: (opts?: ConnectOptions) => Promise<Error & { description?: unknown; data?: unknown }>;
    /** A user signed in over the public API: its access token and session id. */
    signedIn: (
      opts?: Parameters<AuthEnv['makeUser']>[0],
    ) => Promise<{ user: Awaited<ReturnType<AuthEnv['makeUser']>>; accessToken: string; refreshToken: string }>;
    eventually: (check: () => void | Promise<void>, ms?: number) => Promise<void>;
    /** Closes every client socket opened so far (an afterEach: a failed test leaves none behind for the next). */
    disconnectAll: () => void;
  }>;

const randomAddress = (): string => `10.${[...randomBytes(3)].join('.')}`;

/** Records a client's events from creation on; see TestClient. */
export const recordClient = (socket: ClientSocket): TestClient => {
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  socket.onAny((event: string, payload: unknown, meta: unknown) => {
    received.push({ event, payload, meta });
    for (const w of [...waiters]) w();
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const waitFor = <T>(event: string, where?: (payload: T, meta: any) => boolean, timeoutMs = 5_000): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const find = () => received.find((r) => r.event === event && (!where || where(r.payload as T, r.meta)));
      const check = (): boolean => {
        const hit = find();
        if (!hit) return false;
        waiters.delete(check as () => void);
        clearTimeout(timer);
        resolve(hit.payload as T);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check as () => void);
        reject(new Error(`no ${event} within ${timeoutMs} ms; received: ${received.map((r) => r.event).join(', ')}`));
      }, timeoutMs);
      if (!check()) waiters.add(check as () => void);
    });
  let reason: string | undefined;
  const disconnectWaiters: ((r: string) => void)[] = [];
  socket.on('disconnect', (r) => {
    reason = r;
    disconnectWaiters.splice(0).forEach((w) => w(r));
  });
  return {
    socket,
    received,
    waitFor,
    all: (event) => received.filter((r) => r.event === event),
    ack: (event, data, timeoutMs = 5_000) => socket.timeout(timeoutMs).emitWithAck(event, data) as Promise<Ack & Record<string, unknown>>,
    disconnected: () =>
      reason !== undefined || (!socket.connected && !socket.active)
        ? Promise.resolve(reason ?? 'not connected')
        : new Promise((resolve) => disconnectWaiters.push(resolve)),
    close: () => {
      socket.disconnect();
    },
  };
};

/** Emits `event` with an acknowledgement (standalone form of TestClient.ack). */
export const emitWithAck = (socket: ClientSocket, event: string, data?: unknown, timeoutMs = 5_000): Promise<Ack> =>
  socket.timeout(timeoutMs).emitWithAck(event, data) as Promise<Ack>;

/** Waits for the next `event` on a plain client socket. */
export const waitFor = <T = unknown>(socket: ClientSocket, event: string, timeoutMs = 5_000): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off(event, on);
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    const on = (payload: T): void => {
      clearTimeout(timer);
      resolve(payload);
    };
    socket.once(event, on);
  });

/** The realtime stack on real PostgreSQL and Redis: auth env, gateways, projector and publisher, on a bus prefix of its own per file. */
export const createRealtimeEnv = async (label: string, options: RealtimeEnvOptions = {}): Promise<RealtimeEnv> => {
  const env = await createAuthEnv(label);
  const prefix = `test:${label}:${randomBytes(4).toString('hex')}:`;
  const ws: WsSettings = { ...loadConfig({}).ws, ...options.ws };
  const logger = options.logger ?? createLogger({ level: 'silent' });
  const connections: Redis[] = [];
  const redisConnection = (): Redis => {
    const c = new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 2 });
    connections.push(c);
    return c;
  };
  const redis = redisConnection();
  const bus = createRedisBus(redis, redisConnection(), prefix);
  const address = randomAddress();

  let publisher: LedgerPublisher | undefined;
  if (options.publisher !== false) {
    env.startProjector();
    publisher = await startLedgerPublisher({ store: env.store, pool: env.pool, bus, rates: createRates({ pool: env.pool }) });
  }
  const replay =
    options.replay?.(env) ??
    ((userId: number, since: Position) =>
      replayUserEvents(
        { store: env.store, pool: env.pool, rates: createRates({ pool: env.pool }), maxEvents: ws.replayMaxEvents },
        userId,
        since,
      ));
  const handlers = options.handlers?.(env, bus) ?? [];

  const gateways: Gateway[] = [];
  for (let i = 0; i < (options.gateways ?? 1); i += 1) {
    gateways.push(
      await startGateway({
        port: 0,
        host: '127.0.0.1',
        config: { frontendOrigin: FRONTEND, adminToolOrigin: undefined, appEnv: 'staging', ws, trustProxy: LOOPBACK_PROXIES },
        logger,
        pool: env.pool,
        authenticator: env.kit.authenticator,
        bus: createRedisBus(redis, redisConnection(), prefix),
        redis: options.sharedProtection === false ? undefined : redis,
        handlers,
        replay,
        gatewayId: `${prefix}gw${i}`,
        onlineKey: `${prefix}online`,
        protectionKeyPrefix: `${prefix}ws:`,
        ...(options.handlerTimeoutMs === undefined ? {} : { handlerTimeoutMs: options.handlerTimeoutMs }),
        ...(options.deauthSweepMs === undefined ? {} : { deauthSweepMs: options.deauthSweepMs }),
        ...(options.onThrottled ? { onThrottled: options.onThrottled } : {}),
      }),
    );
  }
  const urls = gateways.map((g) => `ws://127.0.0.1:${g.port}`);
  const clients: ClientSocket[] = [];

  const open = (opts: ConnectOptions = {}): ClientSocket => {
    const origin = opts.origin === undefined ? FRONTEND : opts.origin;
    const cookie = Object.entries(opts.cookies ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
    const headers: Record<string, string> = {
      'x-forwarded-for': opts.address ?? address,
      ...(origin === null ? {} : { origin }),
      ...(cookie ? { cookie } : {}),
      ...opts.headers,
    };
    const auth: Record<string, unknown> = {
      ...(opts.token === undefined ? {} : { socket_token: opts.token }),
      ...(opts.since === undefined ? {} : { since: opts.since }),
      ...opts.auth,
    };
    const socket = ioClient(`${urls[opts.gateway ?? 0]}/events`, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth,
      extraHeaders: headers,
      timeout: 5_000,
    });
    clients.push(socket);
    return socket;
  };

  const connect = (opts: ConnectOptions = {}): Promise<TestClient> => {
    const socket = open(opts);
    const client = recordClient(socket);
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(client));
      socket.once('connect_error', reject);
    });
  };

  const connectError = (opts: ConnectOptions = {}) => {
    const socket = open(opts);
    return new Promise<Error & { description?: unknown; data?: unknown }>((resolve, reject) => {
      socket.once('connect', () => {
        socket.disconnect();
        reject(new Error('connected, but a refusal was expected'));
      });
      socket.once('connect_error', (error) => resolve(error as Error & { description?: unknown }));
    });
  };

  return {
    ...env,
    auth: env,
    gateways,
    urls,
    bus,
    redis,
    prefix,
    ws,
    address,
    newAddress: randomAddress,
    connect,
    connectError,
    eventually,
    disconnectAll: () => {
      clients.splice(0).forEach((c) => c.disconnect());
    },
    signedIn: async (opts) => {
      const user = await env.makeUser(opts);
      const { accessToken, refreshToken } = await signIn(env, user);
      return { user, accessToken, refreshToken };
    },
    close: async () => {
      clients.forEach((c) => c.disconnect());
      await Promise.all(gateways.map((g) => g.close()));
      await publisher?.stop();
      const keys = await redis.keys(`${prefix}*`).catch(() => [] as string[]);
      if (keys.length > 0) await redis.del(...keys).catch(() => undefined);
      connections.forEach((c) => c.disconnect());
      await env.close();
    },
  };
};
