export type ThrottleVerdict = Readonly<{ allowed: true }> | Readonly<{ allowed: false; retryAfterMs: number }>;

export type MessageThrottle = Readonly<{
  hit: (address: string) => Promise<ThrottleVerdict>;
}>;

export type ConnectionLimiter = Readonly<{
  acquire: (address: string, connectionId: string) => Promise<boolean>;
  release: (address: string, connectionId: string) => Promise<void>;
  /** Slots expire on their own if this process dies. */
  close: () => Promise<void>;
}>;

export type ProtectionSettings = Readonly<{
  throttlerTtlMs: number;
  throttlerLimit: number;
  throttlerBlockDurationMs: number;
  throttlerDisabled: boolean;
  maxConnectionsPerIp: number;
  onThrottled?: (address: string) => void;
  keyPrefix?: string;
  /** Default 30 s; refreshed every third of it. */
  connectionSlotTtlMs?: number;
  /** A failed heartbeat or release (the limiter carries on; the slots expire on their own). */
  onError?: (error: unknown) => void;
  /** The Redis variants always use Redis `TIME`. */
  now?: () => number;
}>;

export const DEFAULT_KEY_PREFIX = 'ws:';
export const DEFAULT_CONNECTION_SLOT_TTL_MS = 30_000;
