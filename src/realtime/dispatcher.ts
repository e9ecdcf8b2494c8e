import { randomUUID } from 'node:crypto';
import { z, ZodError } from 'zod';
import { holdsPermission, isStaff, type Permission } from '../domain/user/permissions.js';
import { inspectInput } from '../shared/input-policy.js';
import type { Logger } from '../infra/logger.js';
import { AppError } from '../shared/app-error.js';
import { ackOf } from './ack-errors.js';
import type { GatewaySocket, RecoveryResult } from './delivery.js';
import type { MessageThrottle } from './protection/index.js';
import type { Ack, ClientEventContext, ClientEventHandler, SocketUser } from './protocol.js';
import type { AuthErrorCode, AuthOutcome } from './socket-auth.js';

/** Read before every permission-gated event. */
export type LiveAccess =
  Readonly<{ state: 'active'; roles: readonly string[]; permissions: readonly string[] }> | Readonly<{ state: 'ended' | 'banned' }>;

export type Identity = Readonly<{
  signIn: (socket: GatewaySocket, user: SocketUser) => Promise<void>;
  signOut: (socket: GatewaySocket, code: AuthErrorCode) => Promise<void>;
}>;

export type DispatcherDeps = Readonly<{
  handlers: readonly ClientEventHandler[];
  throttle: MessageThrottle;
  logger: Logger;
  timeoutMs: number;
  authenticate: (token: unknown) => Promise<AuthOutcome>;
  liveAccess: (user: SocketUser) => Promise<LiveAccess>;
  identity: Identity;
  recover: (socket: GatewaySocket, since: unknown) => Promise<RecoveryResult>;
}>;

type Reply = ((ack: Ack) => void) | undefined;
type ErrorAck = Extract<Ack, { code: string }> & Readonly<{ requestId?: string }>;

export const AUTHORIZATION_EVENT = 'Authorization';
export const RECOVER_EVENT = 'Recover';
export const GENERIC_EVENT = 'message';

const TOO_MANY_REQUESTS = 'Too many requests';
const UNAUTHORIZED_MESSAGE = 'Authentication required';

const GenericMessage = z.object({
  event: z.string().min(1).max(100),
  data: z.unknown().optional(),
  isAck: z.boolean().optional(),
});
const AuthorizationData = z.object({ accessToken: z.string() });
const RecoverData = z.object({ since: z.string().min(1).max(100) });

const fail = (status: number, code: string, message: string, details?: ErrorAck['details']): ErrorAck => ({
  status,
  code,
  message,
  ...(details ? { details } : {}),
});

/** Named like the HTTP APIs name body fields: `data.<path>`. */
export const zodDetails = (error: ZodError, root = 'data'): { field: string; message: string }[] =>
  error.issues.map((issue) => ({ field: [root, ...issue.path.map(String)].join('.'), message: issue.message }));

const validationFailed = (error: ZodError, root?: string): ErrorAck =>
  fail(400, 'VALIDATION_FAILED', 'Validation failed', zodDetails(error, root));

class HandlerTimeout extends Error {}

const withTimeout = <T>(work: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new HandlerTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
};

/** Faults the client must see even without an acknowledgement are emitted as events. */
export const createDispatcher = (deps: DispatcherDeps) => {
  const byName = new Map(deps.handlers.map((h) => [h.event, h]));
  const log = deps.logger;

  const serverFault = (socket: GatewaySocket, event: string, error: unknown, reply: Reply): void => {
    const requestId = randomUUID();
    log.error({ err: error, requestId, socketId: socket.id, event, userId: socket.data.user?.userId }, 'client event failed');
    socket.emit('ServerError', { message: 'Internal server error', code: 'INTERNAL_ERROR', requestId });
    reply?.({ ...fail(500, 'INTERNAL_ERROR', 'Internal server error'), requestId } as ErrorAck);
  };

  /** A fire-and-forget message gets the spec's ValidationErrors event instead, so the client still learns which fields were wrong. */
  const invalid = (socket: GatewaySocket, answer: ErrorAck, reply: Reply): void => {
    if (reply) return reply(answer);
    socket.emit('ValidationErrors', answer.details ?? [{ field: 'data', message: answer.message }]);
  };

  const unauthorized = (socket: GatewaySocket, reply: Reply): void => {
    socket.emit('Unauthorized', { message: UNAUTHORIZED_MESSAGE });
    reply?.(fail(401, 'UNAUTHORIZED', UNAUTHORIZED_MESSAGE));
  };

  const authorization = async (socket: GatewaySocket, data: unknown, reply: Reply): Promise<void> => {
    const parsed = AuthorizationData.safeParse(data);
    const outcome = await deps.authenticate(parsed.success ? parsed.data.accessToken : undefined);
    if (outcome.ok) {
      await deps.identity.signIn(socket, outcome.user);
      const { userId, username, roles } = outcome.user;
      reply?.({ status: 200, data: { user: { id: userId, username, roles } } });
      return;
    }
    // It asked to be someone we cannot verify.
    await deps.identity.signOut(socket, outcome.error);
    reply?.(fail(401, outcome.error, outcome.message));
  };

  const recover = async (socket: GatewaySocket, data: unknown, reply: Reply): Promise<void> => {
    if (!socket.data.user) return unauthorized(socket, reply);
    const parsed = RecoverData.safeParse(data);
    if (!parsed.success) return invalid(socket, validationFailed(parsed.error), reply);
    reply?.({ status: 200, data: await deps.recover(socket, parsed.data.since) });
  };

  const context = (socket: GatewaySocket, user: SocketUser | undefined): ClientEventContext => ({
    socketId: socket.id,
    user,
    address: socket.data.address,
    join: async (room) => {
      await socket.join(room);
    },
    leave: async (room) => {
      await socket.leave(room);
    },
  });

  const runHandler = async (socket: GatewaySocket, handler: ClientEventHandler, data: unknown, reply: Reply): Promise<void> => {
    let user = socket.data.user;
    if (handler.access !== 'optional' && !user) return unauthorized(socket, reply);
    if (typeof handler.access === 'object' && user) {
      // Read live: a revoked permission, session or a ban counts on the next event.
      const live = await deps.liveAccess(user);
      if (live.state !== 'active') {
        await deps.identity.signOut(socket, live.state === 'banned' ? 'BANNED' : 'SESSION_ENDED');
        return unauthorized(socket, reply);
      }
      user = { ...user, roles: live.roles, permissions: live.permissions };
      const permission = handler.access.permission as Permission;
      if (!isStaff(live.roles) || !holdsPermission(live, permission)) {
        return reply?.(fail(403, 'FORBIDDEN', `Missing permission ${permission}`));
      }
    }
    const parsed = handler.schema.safeParse(data);
    if (!parsed.success) return invalid(socket, validationFailed(parsed.error), reply);
    try {
      const result = await withTimeout(handler.handle(parsed.data, context(socket, user)), deps.timeoutMs);
      reply?.({ status: 200, data: result ?? null });
    } catch (error) {
      if (error instanceof AppError) {
        const answer = ackOf(error);
        return error.errorClass === 'invalid' ? invalid(socket, answer, reply) : reply?.(answer);
      }
      if (error instanceof ZodError) return invalid(socket, validationFailed(error), reply);
      if (error instanceof HandlerTimeout) {
        log.warn({ socketId: socket.id, event: handler.event, timeoutMs: deps.timeoutMs }, 'client event timed out');
        socket.emit('TimeoutError', { message: 'The request timed out' });
        return reply?.(fail(504, 'TIMEOUT', 'The request timed out'));
      }
      serverFault(socket, handler.event, error, reply);
    }
  };

  const route = async (socket: GatewaySocket, event: string, data: unknown, reply: Reply): Promise<void> => {
    if (event === AUTHORIZATION_EVENT) return authorization(socket, data, reply);
    if (event === RECOVER_EVENT) return recover(socket, data, reply);
    const handler = byName.get(event);
    if (!handler) return reply?.(fail(404, 'UNKNOWN_EVENT', `Unknown event ${event.slice(0, 100)}`));
    return runHandler(socket, handler, data, reply);
  };

  const dispatch = async (socket: GatewaySocket, event: unknown, args: unknown[]): Promise<void> => {
    const last = args.at(-1);
    const ack = typeof last === 'function' ? (last as (a: Ack) => void) : undefined;
    const payload = args[0] === ack ? undefined : args[0];
    const name = String(event);
    try {
      let verdict;
      try {
        verdict = await deps.throttle.hit(socket.data.address);
      } catch (error) {
        // Let the message through rather than take the gateway down with the throttle's store.
        log.warn({ err: error }, 'message throttle unavailable');
        verdict = { allowed: true as const };
      }
      if (!verdict.allowed) {
        socket.emit('exception', { status: 'error', message: TOO_MANY_REQUESTS });
        ack?.(fail(429, 'TOO_MANY_REQUESTS', TOO_MANY_REQUESTS));
        return;
      }
      // The HTTP edge's input policy, applied to messages before any handler sees them.
      const problem = inspectInput(name, 'event') ?? inspectInput(payload, name === GENERIC_EVENT ? 'message' : 'data');
      if (problem) return invalid(socket, fail(400, 'VALIDATION_FAILED', 'Validation failed', [problem]), ack);
      if (name !== GENERIC_EVENT) return await route(socket, name, payload, ack);
      // The spec's envelope {event, data, isAck}: the result goes to the acknowledgement only when isAck.
      const generic = GenericMessage.safeParse(payload);
      if (!generic.success) return invalid(socket, validationFailed(generic.error, 'message'), ack);
      await route(socket, generic.data.event, generic.data.data, generic.data.isAck ? ack : undefined);
    } catch (error) {
      serverFault(socket, name, error, ack);
    }
  };

  return { dispatch };
};
