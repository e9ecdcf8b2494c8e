import type { IncomingMessage } from 'node:http';
import type { Redis } from 'ioredis';

/**
 * The gateway's protection (issue 6): a true sliding-window message throttle per client address with
 * a block after it, a parallel-connection limit per address checked before the socket exists, the
 * Origin check of the websocket upgrade, and the client address itself. Shared across gateway
 * processes through Redis when given one; in-process otherwise.
 */
export type ThrottleVerdict = Readonly<{ allowed: true }> | Readonly<{ allowed: false; retryAfterMs: number }>;

export type MessageThrottle = Readonly<{
  /** Counts one message from `address`; refuses it when the window is full or the address is blocked. */
  hit: (address: string) => Promise<ThrottleVerdict>;
}>;

export type ConnectionLimiter = Readonly<{
  /** Reserves a connection slot for `address`; false when the address already holds the maximum. */
  acquire: (address: string, connectionId: string) => Promise<boolean>;
  release: (address: string, connectionId: string) => Promise<void>;
  /** Stops the heartbeat that keeps this process's slots alive (they expire on their own if it dies). */
  close: () => Promise<void>;
}>;

export type ProtectionSettings = Readonly<{
  throttlerTtlMs: number;
  throttlerLimit: number;
  throttlerBlockDurationMs: number;
  throttlerDisabled: boolean;
  maxConnectionsPerIp: number;
  onThrottled?: (address: string) => void;
}>;

export const createMessageThrottle = (_settings: ProtectionSettings, _redis?: Redis): MessageThrottle => {
  throw new Error('not implemented yet (issue 6)');
};

export const createConnectionLimiter = (_settings: ProtectionSettings, _redis?: Redis): ConnectionLimiter => {
  throw new Error('not implemented yet (issue 6)');
};

/** The client address of an upgrade request: the remote address, or the rightmost X-Forwarded-For hop that is not a trusted proxy. */
export const clientAddress = (_req: IncomingMessage, _trustProxy: readonly string[]): string => {
  throw new Error('not implemented yet (issue 6)');
};

/** True when the upgrade request's Origin header is one of the allowed origins (a missing Origin is refused). */
export const originAllowed = (_req: IncomingMessage, _allowed: readonly string[]): boolean => {
  throw new Error('not implemented yet (issue 6)');
};
