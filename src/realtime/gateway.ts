import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { Server, type Namespace } from 'socket.io';
import type { Authenticator } from '../auth/authenticator.js';
import { allowedOrigins, type Config } from '../infra/config.js';
import { formatPosition, type Position } from '../infra/event-store/event-store.port.js';
import type { Logger } from '../infra/logger.js';
import type { ServerEventBus } from '../infra/bus.js';
import { startDeauthListener, type Deauth } from './deauth.js';
import { createDelivery, newDeliveryState, resetDelivery, type GatewaySocket, type SocketData } from './delivery.js';
import { createDispatcher, type Identity, type LiveAccess } from './dispatcher.js';
import { startOnlineTicker } from './online.js';
import { clientAddress, createConnectionLimiter, createMessageThrottle, originAllowed, validateTrustProxy } from './protection/index.js';
import { type BusMessage, type ClientEventHandler, type SocketUser } from './protocol.js';
import { userRoom } from '../shared/rooms.js';
import type { ReplayResult } from './socket-replay.js';
import { AUTH_ERROR_MESSAGES, authenticateSocketToken, tokenFromHandshake, type AuthOutcome } from './socket-auth.js';

export type Gateway = Readonly<{
  io: Server;
  events: Namespace;
  http: HttpServer;
  port: number;
  socketCount: () => number;
  close: () => Promise<void>;
}>;

export type GatewayDeps = Readonly<{
  port: number;
  host?: string;
  config: Pick<Config, 'frontendOrigin' | 'adminToolOrigin' | 'appEnv' | 'ws' | 'trustProxy'>;
  logger: Logger;
  pool: pg.Pool;
  authenticator: Pick<Authenticator, 'authenticateToken'>;
  bus: ServerEventBus;
  /** Shared throttle, connection slots and online count across gateways; in-process without it. */
  redis?: Redis | undefined;
  handlers: readonly ClientEventHandler[];
  replay: (userId: number, since: Position) => Promise<ReplayResult>;
  /** Default 10 s; slower handlers answer TimeoutError / 504. */
  handlerTimeoutMs?: number;
  gatewayId?: string;
  onThrottled?: (address: string) => void;
  /** Backstop check of every authenticated socket's session (default 60 s). */
  deauthSweepMs?: number;
  onlineKey?: string;
  protectionKeyPrefix?: string;
}>;

/** `refused`: accepted only to tell the client why (no slot, no auth, no handler, closed at once). */
type Admission = { address: string; cookiesAllowed: boolean; refused?: string };

const TOO_MANY_CONNECTIONS = 'Too many connections';
const ORIGIN_REFUSED = 'Origin not allowed';

export const startGateway = async (deps: GatewayDeps): Promise<Gateway> => {
  const { config } = deps;
  const log = deps.logger.child({ component: 'gateway' });
  const gatewayId = deps.gatewayId ?? randomUUID();
  const allowed = allowedOrigins(config);
  validateTrustProxy(config.trustProxy); // a bad TRUST_PROXY stops the start, not every later connection
  const settings = {
    throttlerTtlMs: config.ws.throttlerTtlMs,
    throttlerLimit: config.ws.throttlerLimit,
    throttlerBlockDurationMs: config.ws.throttlerBlockDurationMs,
    throttlerDisabled: config.ws.throttlerDisabled,
    maxConnectionsPerIp: config.ws.maxConnectionsPerIp,
    ...(deps.onThrottled ? { onThrottled: deps.onThrottled } : {}),
    ...(deps.protectionKeyPrefix === undefined ? {} : { keyPrefix: deps.protectionKeyPrefix }),
    onError: (error: unknown) => log.warn({ err: error }, 'connection limiter: redis call failed'),
  };
  const throttle = createMessageThrottle(settings, deps.redis);
  const limiter = createConnectionLimiter(settings, deps.redis);
  const admissions = new WeakMap<IncomingMessage, Admission>();

  const http = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ statusCode: 404, code: 'NOT_FOUND', message: 'Not found' }));
  });

  /** Origin check here: socket.io's cors does not cover upgrades, and with cookie auth that is cross-site websocket hijacking. */
  const allowRequest = (req: IncomingMessage, answer: (err: string | null | undefined, success: boolean) => void): void => {
    const admit = async (): Promise<string | undefined> => {
      const origin = req.headers.origin;
      if (origin !== undefined && !originAllowed(req, allowed)) return ORIGIN_REFUSED;
      const address = clientAddress(req, config.trustProxy);
      const connectionId = randomUUID();
      if (!(await limiter.acquire(address, connectionId))) {
        // Accepted without a slot so the client sees the reason (a refused upgrade only shows 'websocket error').
        admissions.set(req, { address, cookiesAllowed: false, refused: TOO_MANY_CONNECTIONS });
        log.info({ reason: TOO_MANY_CONNECTIONS, address }, 'connection refused');
        return undefined;
      }
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        limiter.release(address, connectionId).catch((error: unknown) => log.warn({ err: error }, 'connection slot release failed'));
      };
      // Its end frees the slot, also when the handshake fails.
      req.socket.once('close', release);
      admissions.set(req, { address, cookiesAllowed: origin !== undefined });
      return undefined;
    };
    admit().then(
      (refusal) => {
        if (refusal) log.info({ reason: refusal, address: req.socket.remoteAddress }, 'connection refused');
        answer(refusal ?? null, refusal === undefined);
      },
      (error: unknown) => {
        log.error({ err: error }, 'connection admission failed');
        answer('Internal server error', false);
      },
    );
  };

  const io = new Server(http, {
    transports: ['websocket'],
    serveClient: false,
    maxHttpBufferSize: config.ws.clientMessageMaxLen,
    cors: { origin: allowed, credentials: true },
    allowRequest,
  });
  io.of('/').use((_socket, next) => next(new Error('Use the /events namespace')));
  const events = io.of('/events');
  const delivery = createDelivery({ events, maxQueuedPackets: config.ws.maxQueuedPackets, logger: log });

  const identity: Identity = {
    signIn: async (socket, user) => {
      const data = socket.data;
      if (data.user && data.user.userId !== user.userId) await socket.leave(userRoom(data.user.userId));
      if (data.user?.userId !== user.userId) resetDelivery(data.delivery);
      data.user = user;
      await socket.join(userRoom(user.userId));
      socket.emit('AuthSuccess', { user: { id: user.userId, username: user.username, roles: user.roles } });
    },
    signOut: async (socket, code) => {
      const data = socket.data;
      if (data.user) {
        await socket.leave(userRoom(data.user.userId));
        data.user = undefined;
        resetDelivery(data.delivery);
      }
      socket.emit('AuthError', { error: code, message: AUTH_ERROR_MESSAGES[code] });
    },
  };

  const liveAccess = async (user: SocketUser): Promise<LiveAccess> => {
    if (!user.sessionId) return { state: 'ended' };
    const { rows } = await deps.pool.query<{ roles: string[]; permissions: string[]; is_banned: boolean }>(
      `SELECT a.roles, a.permissions, a.is_banned FROM sessions s JOIN user_access a ON a.user_id = s.user_id
       WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now()`,
      [user.sessionId, user.userId],
    );
    const row = rows[0];
    if (!row) return { state: 'ended' };
    if (row.is_banned) return { state: 'banned' };
    return { state: 'active', roles: row.roles, permissions: row.permissions };
  };

  const authenticate = (token: unknown): Promise<AuthOutcome> =>
    authenticateSocketToken((t) => deps.authenticator.authenticateToken(t), token);
  const recover = (socket: GatewaySocket, since: unknown) => delivery.recover(socket, since, deps.replay);

  const dispatcher = createDispatcher({
    handlers: deps.handlers,
    throttle,
    logger: log,
    timeoutMs: deps.handlerTimeoutMs ?? 10_000,
    authenticate,
    liveAccess,
    identity,
    recover,
  });

  const refuse = (socket: GatewaySocket, reason: string, next: (err?: Error) => void): void => {
    next(Object.assign(new Error(reason), { data: { status: 'error', message: reason } }));
    // socket.io writes the error on the next tick and drops it once the connection is closing: close after that.
    setImmediate(() => socket.conn.close());
  };
  io.engine.on('connection', (conn: { request: IncomingMessage; close: () => void }) => {
    if (admissions.get(conn.request)?.refused) setTimeout(() => conn.close(), 1_000).unref();
  });

  // Before 'connection', so the client's first message already finds its identity.
  const handshakeAuth = new WeakMap<GatewaySocket, AuthOutcome | Error>();
  events.use((raw, next) => {
    const socket = raw as GatewaySocket;
    const admission = admissions.get(socket.request);
    if (!admission) return next(new Error('Not admitted'));
    if (admission.refused) return refuse(socket, admission.refused, next);
    const data: SocketData = {
      address: admission.address,
      cookiesAllowed: admission.cookiesAllowed,
      user: undefined,
      delivery: newDeliveryState(),
    };
    socket.data = data;
    authenticate(tokenFromHandshake(socket.handshake, admission.cookiesAllowed)).then(
      (outcome) => {
        handshakeAuth.set(socket, outcome);
        next();
      },
      (error: unknown) => {
        handshakeAuth.set(socket, error as Error);
        next();
      },
    );
  });

  events.on('connection', (raw) => {
    const socket = raw as GatewaySocket;
    log.debug({ socketId: socket.id, address: socket.data.address }, 'socket connected');
    socket.on('error', (error) => log.debug({ err: error, socketId: socket.id }, 'socket error'));
    socket.on('disconnect', (reason) => log.debug({ socketId: socket.id, reason }, 'socket disconnected'));
    socket.onAny((event: unknown, ...args: unknown[]) => {
      void dispatcher.dispatch(socket, event, args);
    });

    const outcome = handshakeAuth.get(socket);
    handshakeAuth.delete(socket);
    const since = (socket.handshake.auth as Record<string, unknown> | undefined)?.since;
    void (async () => {
      if (outcome instanceof Error || outcome === undefined) {
        const requestId = randomUUID();
        log.error({ err: outcome, requestId, socketId: socket.id }, 'handshake authentication failed');
        socket.emit('ServerError', { message: 'Internal server error', code: 'INTERNAL_ERROR', requestId });
      } else if (outcome.ok) {
        await identity.signIn(socket, outcome.user);
        // Nothing awaited between joining the user room and recovery: no live event slips past the buffer.
        if (since !== undefined) await recover(socket, since);
      } else {
        socket.emit('AuthError', { error: outcome.error, message: outcome.message });
        if (since !== undefined) await recover(socket, since);
      }
    })().catch((error: unknown) => log.error({ err: error, socketId: socket.id }, 'connection setup failed'));
  });

  const deauth = (d: Deauth): void => {
    for (const s of delivery.localSockets(userRoom(d.userId))) {
      if (d.sessionId === undefined || s.data.user?.sessionId === d.sessionId) {
        identity.signOut(s, d.reason).catch((error: unknown) => log.warn({ err: error }, 'deauth failed'));
      }
    }
  };

  /** Backstop for missed notifications and expired sessions. */
  const sweep = async (): Promise<void> => {
    const bySession = new Map<string, GatewaySocket[]>();
    for (const s of events.sockets.values() as Iterable<GatewaySocket>) {
      const sid = s.data.user?.sessionId;
      if (sid) bySession.set(sid, [...(bySession.get(sid) ?? []), s]);
    }
    if (bySession.size === 0) return;
    const { rows } = await deps.pool.query<{ id: string; is_banned: boolean }>(
      `SELECT s.id::text AS id, a.is_banned FROM sessions s JOIN user_access a ON a.user_id = s.user_id
       WHERE s.id = ANY($1::uuid[]) AND s.revoked_at IS NULL AND s.expires_at > now()`,
      [[...bySession.keys()]],
    );
    const alive = new Map(rows.map((r) => [r.id, r.is_banned]));
    for (const [sid, sockets] of bySession) {
      const banned = alive.get(sid);
      if (banned === false) continue;
      for (const s of sockets) {
        if (s.data.user?.sessionId === sid) await identity.signOut(s, banned ? 'BANNED' : 'SESSION_ENDED');
      }
    }
  };
  const runSweep = (): void => {
    sweep().catch((error: unknown) => log.warn({ err: error }, 'session sweep failed'));
  };
  const sweepTimer = setInterval(runSweep, deps.deauthSweepMs ?? 60_000);
  sweepTimer.unref();
  const listener = await startDeauthListener({ pool: deps.pool, logger: log, onDeauth: deauth, onReconnect: runSweep });

  const unsubscribe = await deps.bus.subscribe((name, message) => {
    try {
      delivery.deliver(name, message as BusMessage);
    } catch (error) {
      log.error({ err: error, event: name }, 'delivery failed');
    }
  });

  // Pub/sub keeps nothing for an absent subscriber: catch every signed-in socket up from the store (repeats dropped by position).
  const stopResync = deps.bus.onResubscribed?.(() => {
    for (const s of events.sockets.values()) {
      const socket = s as GatewaySocket;
      const last = socket.data.delivery?.last;
      if (socket.data.user && last) void recover(socket, formatPosition(last.position));
    }
  });

  const online = startOnlineTicker({
    events,
    intervalMs: config.ws.usersOnlineIntervalMs,
    gatewayId,
    redis: deps.redis,
    logger: log,
    key: deps.onlineKey ?? 'gateway:online',
    afterTick: () => {
      for (const s of events.sockets.values()) delivery.guard(s as GatewaySocket);
    },
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(deps.port, deps.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const actualPort = (http.address() as AddressInfo).port;

  return {
    io,
    events,
    http,
    port: actualPort,
    socketCount: () => events.sockets.size,
    close: async () => {
      clearInterval(sweepTimer);
      stopResync?.();
      await online.stop();
      await unsubscribe();
      await listener.close();
      await new Promise<void>((resolve) => {
        void io.close(() => resolve());
      });
      await limiter.close();
    },
  };
};
