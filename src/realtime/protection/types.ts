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
  /** Prefix of every Redis key (default `ws:`); parallel test files give each its own. */
  keyPrefix?: string;
  /** How long a connection slot lives in Redis without a heartbeat (default 30 s); refreshed every third of it. */
  connectionSlotTtlMs?: number;
  /** A failed heartbeat or release (the limiter carries on; the slots expire on their own). */
  onError?: (error: unknown) => void;
  /** Clock of the in-process variants (tests); the Redis variants always use Redis `TIME`. */
  now?: () => number;
}>;

export const DEFAULT_KEY_PREFIX = 'ws:';
export const DEFAULT_CONNECTION_SLOT_TTL_MS = 30_000;
