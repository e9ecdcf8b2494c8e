import type { Namespace, Socket } from 'socket.io';
import { comparePositions, parsePosition, type Position } from '../infra/event-store/event-store.port.js';
import type { Logger } from '../infra/logger.js';
import type { ReplayResult } from './socket-replay.js';
import { type BusMessage, type SocketUser } from './protocol.js';
import { userRoom } from '../shared/rooms.js';

/** The second argument: `socket.on(name, (payload, meta) => ...)`. */
export type EventMeta = Readonly<{ position: string; replayed?: true }>;

type Pending = Readonly<{ name: string; payload: unknown; position: string | undefined }>;

export type DeliveryState = {
  recovering: boolean;
  buffer: Pending[];
  last: { position: Position; names: Set<string> | 'all' } | undefined;
  /** Bumped on identity change: a recovery in flight for an old identity is dropped. */
  generation: number;
};

export const newDeliveryState = (): DeliveryState => ({ recovering: false, buffer: [], last: undefined, generation: 0 });

export const resetDelivery = (state: DeliveryState): void => {
  state.recovering = false;
  state.buffer = [];
  state.last = undefined;
  state.generation += 1;
};

const tryParse = (text: string): Position | undefined => {
  try {
    return parsePosition(text);
  } catch {
    return undefined;
  }
};

/** Whether a positioned event goes out, and remembers it. */
export const acceptPositioned = (state: DeliveryState, name: string, position: string): boolean => {
  const p = tryParse(position);
  if (!p) return true;
  const last = state.last;
  if (last) {
    const order = comparePositions(p, last.position);
    if (order < 0) return false;
    if (order === 0) {
      if (last.names === 'all' || last.names.has(name)) return false;
      last.names.add(name);
      return true;
    }
  }
  state.last = { position: p, names: new Set([name]) };
  return true;
};

/** A replay went up to `position`. */
export const markCovered = (state: DeliveryState, position: Position): void => {
  if (!state.last || comparePositions(position, state.last.position) >= 0) state.last = { position, names: 'all' };
};

export type SocketData = {
  address: string;
  cookiesAllowed: boolean;
  user: SocketUser | undefined;
  delivery: DeliveryState;
};

export type GatewaySocket = Socket<any, any, any, SocketData>; // eslint-disable-line @typescript-eslint/no-explicit-any

export type RecoveryResult = Readonly<{ recovered: true; position: string }> | Readonly<{ recovered: false; reason: string }>;

export type DeliveryDeps = Readonly<{
  events: Namespace;
  maxQueuedPackets: number;
  logger: Logger;
}>;

export const createDelivery = (deps: DeliveryDeps) => {
  const log = deps.logger;

  /** Drops a socket that cannot keep up. */
  const guard = (socket: GatewaySocket): boolean => {
    // engine.io keeps packets in writeBuffer while the client is not reading.
    const queued = (socket.conn as unknown as { writeBuffer: readonly unknown[] }).writeBuffer.length;
    if (queued <= deps.maxQueuedPackets) return false;
    log.warn({ socketId: socket.id, address: socket.data.address, queued }, 'slow consumer dropped');
    socket.disconnect(true);
    return true;
  };

  const emitNow = (socket: GatewaySocket, name: string, payload: unknown, meta: EventMeta | undefined): void => {
    if (meta) socket.emit(name, payload, meta);
    else socket.emit(name, payload);
  };

  /** Buffered while the socket recovers, deduplicated by position. */
  const toUserSocket = (socket: GatewaySocket, name: string, payload: unknown, position: string | undefined): void => {
    const state = socket.data.delivery;
    if (state.recovering) {
      state.buffer.push({ name, payload, position });
      return;
    }
    if (position !== undefined && !acceptPositioned(state, name, position)) return;
    emitNow(socket, name, payload, position === undefined ? undefined : { position });
    guard(socket);
  };

  const localSockets = (room: string): GatewaySocket[] => {
    const ids = deps.events.adapter.rooms.get(room);
    if (!ids) return [];
    const out: GatewaySocket[] = [];
    for (const id of ids) {
      const s = deps.events.sockets.get(id) as GatewaySocket | undefined;
      if (s) out.push(s);
    }
    return out;
  };

  const guardAll = (sockets: Iterable<GatewaySocket>): void => {
    for (const s of sockets) guard(s);
  };

  const deliver = (name: string, message: BusMessage): void => {
    const position = typeof message.position === 'string' ? message.position : undefined;
    if (typeof message.userId === 'number') {
      for (const s of localSockets(userRoom(message.userId))) toUserSocket(s, name, message.payload, position);
      return;
    }
    if (typeof message.room === 'string') {
      const target = deps.events.to(message.room);
      if (position !== undefined) target.emit(name, message.payload, { position });
      else target.emit(name, message.payload);
      guardAll(localSockets(message.room));
      return;
    }
    if (position !== undefined) deps.events.emit(name, message.payload, { position });
    else deps.events.emit(name, message.payload);
    guardAll(deps.events.sockets.values() as Iterable<GatewaySocket>);
  };

  /** Buffers live events while the store is read, replays the missed ones, then sends the buffer minus what the replay covered. */
  const recover = async (
    socket: GatewaySocket,
    since: unknown,
    replay: (userId: number, since: Position) => Promise<ReplayResult>,
  ): Promise<RecoveryResult> => {
    const user = socket.data.user;
    const state = socket.data.delivery;
    const refuse = (reason: string): RecoveryResult => {
      const outcome = { recovered: false as const, reason };
      socket.emit('RecoveryResult', outcome);
      return outcome;
    };
    if (!user) return refuse('UNAUTHENTICATED');
    const from = typeof since === 'string' ? tryParse(since) : undefined;
    if (!from) return refuse('MALFORMED_POSITION');
    if (state.recovering) return refuse('RECOVERY_IN_PROGRESS');
    const generation = state.generation;
    state.recovering = true;
    let result: ReplayResult;
    try {
      result = await replay(user.userId, from);
    } catch (error) {
      log.error({ err: error, socketId: socket.id, userId: user.userId }, 'replay failed');
      result = { recovered: false, reason: 'REPLAY_FAILED' };
    }
    // Identity changed (or left) while the store was read: what was read is not for it.
    if (state.generation !== generation || !socket.connected) return { recovered: false, reason: 'SUPERSEDED' };
    let outcome: RecoveryResult;
    if (result.recovered) {
      for (const e of result.events) {
        if (acceptPositioned(state, e.name, e.position)) emitNow(socket, e.name, e.payload, { position: e.position, replayed: true });
      }
      const upTo = tryParse(result.position);
      if (upTo) markCovered(state, upTo);
      outcome = { recovered: true, position: result.position };
    } else {
      outcome = { recovered: false, reason: result.reason };
    }
    const buffered = state.buffer;
    state.buffer = [];
    state.recovering = false;
    for (const p of buffered) toUserSocket(socket, p.name, p.payload, p.position);
    socket.emit('RecoveryResult', outcome);
    guard(socket);
    return outcome;
  };

  return { deliver, recover, guard, localSockets };
};

export type Delivery = ReturnType<typeof createDelivery>;
